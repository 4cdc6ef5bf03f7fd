import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLOCK_TOLERANCE_SECONDS } from '../../src/auth/token-verifier.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { JwksServer, signingKey, signWith } from './jwks-server.js';

// Beyond server/test/auth/authentication.test.ts (RS256/ES256 accepted, HS256 and unknown keys refused,
// an unreachable JWKS answers 503): rotation, kid selection, a JWKS that does not answer, and the
// clock skew tolerance. The verifier uses jose's createRemoteJWKSet with timeoutDuration 3000,
// cooldownDuration 30000 and the default cacheMaxAge of 10 minutes.
let database: DatabaseHandle;
let idp: JwksServer;
const services: TestServer[] = [];
beforeAll(async () => {
  database = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
  idp = await JwksServer.start();
});
afterEach(async () => {
  vi.useRealTimers();
  idp.mode = 'answer';
  await Promise.all(services.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await idp?.close();
  await database?.close();
});

/** A service of its own, whose JWKS cache starts empty (like a freshly started process). */
async function service(): Promise<TestServer> {
  const started = await startTestServer({ database, verifier: { jwksUrl: idp.url } });
  services.push(started);
  return started;
}

async function me(s: TestServer, token: string) {
  const started = performance.now();
  const res = await fetch(`${s.baseUrl}/me`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, code: body.error?.code, ms: Math.round(performance.now() - started) };
}

const sub = () => `idp-${randomUUID().slice(0, 8)}`;
const seconds = () => Math.floor(Date.now() / 1000);

describe('key rotation', () => {
  it('publishing the next key before signing with it: no token is refused, and a withdrawn key is refused once fetched', async () => {
    const [current, next] = await Promise.all([
      signingKey('RS256', 'key-2026-01'),
      signingKey('RS256', 'key-2026-02'),
    ]);
    idp.publish(current, next);
    const s = await service();
    const fetched = idp.fetches;
    expect((await me(s, await signWith(current, { sub: sub() }))).status).toBe(200);
    expect((await me(s, await signWith(next, { sub: sub() }))).status).toBe(200);
    expect(idp.fetches - fetched, 'one fetch serves both keys').toBe(1);

    idp.publish(next);
    const restarted = await service();
    expect((await me(restarted, await signWith(current, { sub: sub() }))).status).toBe(401);
    expect((await me(restarted, await signWith(next, { sub: sub() }))).status).toBe(200);
  });

  it('in real time: a new kid waits out the 30 s cooldown, a withdrawn key lives until the cache is 10 min old', async () => {
    const [current, next] = await Promise.all([signingKey('ES256', 'es-old'), signingKey('ES256', 'es-new')]);
    idp.publish(current);
    const s = await service();
    // jose reads Date.now() for its cooldown and cache age; only Date is faked, timers stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    const fetched = idp.fetches;
    const fetches = () => idp.fetches - fetched;
    expect((await me(s, await signWith(current, { sub: sub() }))).status).toBe(200);
    expect(fetches()).toBe(1);

    // The provider publishes a new key and signs with it at once: refused for up to 30 s.
    idp.publish(current, next);
    expect(await me(s, await signWith(next, { sub: sub() }))).toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
    });
    // Unknown kids (an attacker's, say) cost no fetch within the cooldown: the provider is not flooded.
    for (let i = 0; i < 10; i++)
      expect((await me(s, await signWith(next, { sub: sub(), kid: randomUUID() }))).status).toBe(401);
    expect(fetches()).toBe(1);

    vi.setSystemTime(Date.now() + 31_000);
    expect((await me(s, await signWith(next, { sub: sub() }))).status).toBe(200);
    expect(fetches(), 'an unknown kid after the cooldown refetches').toBe(2);
    expect((await me(s, await signWith(current, { sub: sub() }))).status).toBe(200);

    // The provider withdraws the old key: the cached set still holds it until it is 10 minutes old.
    idp.publish(next);
    vi.setSystemTime(Date.now() + 9 * 60_000);
    expect((await me(s, await signWith(current, { sub: sub() }))).status).toBe(200);
    expect(fetches()).toBe(2);
    vi.setSystemTime(Date.now() + 61_000);
    expect((await me(s, await signWith(current, { sub: sub() }))).status).toBe(401);
    expect(fetches(), 'a stale cache is refetched').toBe(3);
    expect((await me(s, await signWith(next, { sub: sub() }))).status).toBe(200);
  });
});

describe('kid selection', () => {
  it('verifies with the key the kid names, among several of the same algorithm', async () => {
    const [a, b, c, es] = await Promise.all([
      signingKey('RS256', 'rs-a'),
      signingKey('RS256', 'rs-b'),
      signingKey('RS256', 'rs-c'),
      signingKey('ES256', 'es-a'),
    ]);
    idp.publish(a, b, c, es);
    const s = await service();
    expect((await me(s, await signWith(b, { sub: sub() }))).status).toBe(200);
    expect((await me(s, await signWith(c, { sub: sub() }))).status).toBe(200);
    // Signed by b, but naming a: verified with a's key, so refused (no trying of every key).
    expect((await me(s, await signWith(b, { sub: sub(), kid: 'rs-a' }))).status).toBe(401);
    // Naming a key of another algorithm.
    expect((await me(s, await signWith(b, { sub: sub(), kid: 'es-a' }))).status).toBe(401);
    // No kid while three RS256 keys are published: ambiguous, refused (jose does not try them all).
    expect((await me(s, await signWith(b, { sub: sub(), kid: null }))).status).toBe(401);
    // The only ES256 key needs no kid.
    expect((await me(s, await signWith(es, { sub: sub(), kid: null }))).status).toBe(200);
  });
});

describe('a JWKS endpoint that misbehaves', () => {
  it.each([
    ['accepts the connection and never answers', 'hang'],
    ['answers 500', 'error'],
    ['sends the headers of a 200 and never finishes the body', 'stall'],
  ] as const)(
    '%s: 503 SERVICE_UNAVAILABLE within 5 s, never 401, and recovers when it answers',
    async (_name, mode) => {
      const key = await signingKey('RS256', `rs-${mode}`);
      idp.publish(key);
      idp.mode = mode;
      const s = await service();
      const fetched = idp.fetches;
      const answers = await Promise.all(
        Array.from({ length: 5 }, async () => me(s, await signWith(key, { sub: sub() }))),
      );
      console.warn(`jwks ${mode}: ${JSON.stringify(answers)}, ${idp.fetches - fetched} fetch(es)`);
      for (const answer of answers) {
        expect(answer).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(answer.ms).toBeLessThan(5000);
      }
      idp.mode = 'answer';
      expect((await me(s, await signWith(key, { sub: sub() }))).status).toBe(200);
    },
  );
});

describe('clock skew', () => {
  it(`accepts a token up to ${CLOCK_TOLERANCE_SECONDS} s past exp or before nbf, and refuses beyond`, async () => {
    // Bounded: a tolerance of minutes would keep an expired token alive that long.
    expect(CLOCK_TOLERANCE_SECONDS).toBeGreaterThanOrEqual(3);
    expect(CLOCK_TOLERANCE_SECONDS).toBeLessThanOrEqual(60);
    const key = await signingKey('ES256', 'es-skew');
    idp.publish(key);
    const s = await service();
    const within = CLOCK_TOLERANCE_SECONDS - 2;
    const beyond = CLOCK_TOLERANCE_SECONDS + 2;
    const cases = [
      ['expired within the tolerance', { exp: seconds() - within }, 200],
      ['expired beyond the tolerance', { exp: seconds() - beyond }, 401],
      ['not valid yet, within the tolerance', { nbf: seconds() + within }, 200],
      ['not valid yet, beyond the tolerance', { nbf: seconds() + beyond }, 401],
    ] as const;
    for (const [name, claims, status] of cases) {
      const res = await me(s, await signWith(key, { sub: sub(), ...claims }));
      expect(res.status, name).toBe(status);
      if (status === 401) expect(res.code, name).toBe('UNAUTHENTICATED');
    }
  });
});
