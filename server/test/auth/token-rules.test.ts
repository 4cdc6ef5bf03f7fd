import { request } from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { startTestServer, TEST_SECRET, type TestServer } from '../support/harness.js';
import type { Json } from '../support/json.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const now = () => Math.floor(Date.now() / 1000);
const HOUR = 3600;

/** Signs exactly the claims given: no iat or exp unless they are among them. */
const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(TEST_SECRET));

const fresh = (claims: Record<string, unknown> = {}) =>
  sign({ sub: unique('rules'), iat: now(), exp: now() + 300, ...claims });

type Answer = { status: number; body: Json; wwwAuthenticate?: string };

/** GET /me with raw headers: a flat [name, value, name, value] list, duplicates kept as sent. */
function me(headers: string[], server = h): Promise<Answer> {
  const url = new URL('/me', server.baseUrl);
  // Given a list, node sends exactly that: no Host header of its own.
  const raw = ['Host', url.host, ...headers];
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: raw }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        try {
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text),
            wwwAuthenticate: res.headers['www-authenticate'],
          });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const withToken = (token: string, server = h) => me(['Authorization', `Bearer ${token}`], server);

function expectRefused(answer: Answer, message?: RegExp) {
  expect(answer.status).toBe(401);
  expect(answer.body).toMatchObject({ success: false, error: { code: 'UNAUTHENTICATED' } });
  expect(answer.wwwAuthenticate).toMatch(/^Bearer/);
  if (message) expect(answer.body.error.message).toMatch(message);
}

describe('token lifetime', () => {
  it('refuses a token without exp, which would never expire', async () => {
    expectRefused(await withToken(await sign({ sub: unique('no-exp'), iat: now() })), /exp/);
    expectRefused(await withToken(await sign({ sub: unique('no-exp') })), /exp/);
  });

  it('refuses a lifetime (exp - iat) over the 24 h default, and accepts exactly 24 h', async () => {
    const iat = now() - 60;
    expectRefused(await withToken(await fresh({ iat, exp: iat + 24 * HOUR + 1 })), /lifetime/);
    expectRefused(await withToken(await fresh({ iat, exp: iat + 365 * 24 * HOUR })), /lifetime/);
    // A token issued long ago and valid for years: exp - iat counts, not what is left of it.
    expectRefused(await withToken(await fresh({ iat: 0, exp: now() + 60 })), /lifetime/);
    expect((await withToken(await fresh({ iat, exp: iat + 24 * HOUR }))).status).toBe(200);
  });

  it('without iat, refuses an exp further than the maximum from now', async () => {
    expectRefused(await withToken(await sign({ sub: unique('no-iat'), exp: now() + 25 * HOUR })), /lifetime/);
    expect((await withToken(await sign({ sub: unique('no-iat'), exp: now() + 23 * HOUR }))).status).toBe(200);
  });

  it('refuses an iat further in the future than the clock tolerance', async () => {
    expectRefused(await withToken(await fresh({ iat: now() + 60, exp: now() + 120 })), /iat|future/);
    expect((await withToken(await fresh({ iat: now() + 2 }))).status).toBe(200);
  });

  it('applies a configured maximum', async () => {
    const strict = await startTestServer({
      database: h.database,
      verifier: { secret: TEST_SECRET, maxLifetimeSeconds: HOUR },
    });
    try {
      const iat = now();
      expectRefused(await withToken(await fresh({ iat, exp: iat + 2 * HOUR }), strict), /3600/);
      expect((await withToken(await fresh({ iat, exp: iat + HOUR }), strict)).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('the Authorization header', () => {
  it('refuses two Authorization headers, whatever they hold', async () => {
    const alice = await fresh();
    const bob = await fresh();
    expectRefused(await me(['Authorization', `Bearer ${alice}`, 'Authorization', `Bearer ${bob}`]), /one/i);
    expectRefused(await me(['Authorization', `Bearer ${alice}`, 'authorization', `Bearer ${alice}`]));
    expectRefused(await me(['Authorization', 'Basic dXNlcjpwYXNz', 'Authorization', `Bearer ${alice}`]));
  });

  it('takes the scheme case-insensitively and one or more spaces after it (RFC 9110, RFC 6750)', async () => {
    const token = await fresh();
    for (const credentials of [`bearer ${token}`, `BEARER ${token}`, `bEaReR ${token}`, `Bearer  ${token}`]) {
      expect((await me(['Authorization', credentials])).status, credentials).toBe(200);
    }
  });

  it('still refuses other schemes and malformed credentials', async () => {
    const token = await fresh();
    for (const credentials of [
      `Token ${token}`,
      `Bearer${token}`,
      `Bearer\t${token}`,
      `Bearer ${token} extra`,
      `Bearer ${token.replace('.', '=')}`,
      `Bearers ${token}`,
    ]) {
      expectRefused(await me(['Authorization', credentials]));
    }
  });
});

describe('claims that are not well-formed Unicode', () => {
  it('refuses subjects with lone surrogates, which would all become the same stored subject', async () => {
    // JSON.stringify writes a lone surrogate as the escape \ud800, which a JWT's JSON decodes back.
    for (const sub of ['x-\ud800', 'x-\udbff', '\udc00-x']) {
      expectRefused(await withToken(await fresh({ sub })), /subject/);
    }
  });

  it('accepts subjects with characters outside the BMP (well-formed surrogate pairs)', async () => {
    expect((await withToken(await fresh({ sub: unique('emoji-\u{1F600}') }))).status).toBe(200);
  });

  it('ignores an email or name that is not well-formed, like any other bad optional claim', async () => {
    const res = await withToken(
      await fresh({ email: `x\ud800@${unique('d')}.test`, email_verified: true, name: 'Bad \udfff name' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ email: null });
    expect(res.body.data.user.displayName ?? '').not.toContain('\ufffd');
    expect(res.body.data.user.displayName ?? '').not.toContain('Bad');
  });
});
