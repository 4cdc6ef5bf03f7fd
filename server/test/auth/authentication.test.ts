import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, createSuperAdmin, unique } from '../support/factories.js';
import { startTestServer, TEST_SECRET, type TestServer } from '../support/harness.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const key = (secret: string) => new TextEncoder().encode(secret);
const now = () => Math.floor(Date.now() / 1000);
type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function meWith(authorization: string | undefined, server = h) {
  const res = await fetch(`${server.baseUrl}/me`, { headers: authorization ? { authorization } : {} });
  return { status: res.status, body: await res.json(), wwwAuthenticate: res.headers.get('www-authenticate') };
}

describe('tokens that are refused with 401 UNAUTHENTICATED', () => {
  const cases: [string, () => Promise<string | undefined>][] = [
    ['no Authorization header', async () => undefined],
    ['a Basic credential', async () => 'Basic dXNlcjpwYXNz'],
    ['Bearer with nothing after it', async () => 'Bearer '],
    ['a token that is not a JWT', async () => 'Bearer not-a-jwt'],
    [
      'a token signed with another secret',
      async () => `Bearer ${await signHs({ sub: 'x' }, 'another-secret-another-secret-1234')}`,
    ],
    ['an expired token', async () => `Bearer ${await signHs({ sub: 'x', exp: now() - 60 })}`],
    ['a token not valid yet', async () => `Bearer ${await signHs({ sub: 'x', nbf: now() + 120 })}`],
    ['a token without sub', async () => `Bearer ${await signHs({ email: 'a@b.test' })}`],
    ['a subject with a NUL character', async () => `Bearer ${await signHs({ sub: 'evil\u0000sub' })}`],
    [
      'an unsigned token (alg none)',
      async () => `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'x', exp: now() + 60 })}.`,
    ],
    ['an RS256 token when only HS256 is configured', async () => `Bearer ${await signRs({ sub: 'x' })}`],
    ['a token with a tampered payload', async () => `Bearer ${await tamper(await signHs({ sub: 'x' }))}`],
  ];

  it.each(cases)('%s', async (_name, authorization) => {
    const res = await meWith(await authorization());
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHENTICATED' } });
    expect(res.wwwAuthenticate).toMatch(/^Bearer/);
  });
});

async function signHs(claims: Record<string, unknown>, secret = TEST_SECRET) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime((claims.exp as number | undefined) ?? now() + 300)
    .sign(key(secret));
}

async function signRs(claims: Record<string, unknown>) {
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(privateKey);
}

async function tamper(token: string) {
  const [header, , signature] = token.split('.');
  return `${header}.${b64({ sub: 'someone-else', exp: now() + 300 })}.${signature}`;
}

/** A 200 answer, typed as one. It throws rather than returns early: a skipped assertion passes silently. */
function ok<R extends { status: number; body: unknown }>(res: R): Extract<R, { status: 200 }> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res as Extract<R, { status: 200 }>;
}

describe('users are found by subject', () => {
  it('creates a user on first sight and finds the same one afterwards', async () => {
    const token = await h.token(unique('newcomer'), { name: 'New Comer' });
    const first = await h.client(token).me.get();
    const second = await h.client(token).me.get();
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const firstMe = ok(first).body.data;
    expect(firstMe.user).toMatchObject({
      displayName: 'New Comer',
      isSuperAdmin: false,
      email: null,
    });
    expect(ok(second).body.data.user.userId).toBe(firstMe.user.userId);
    expect(firstMe.memberships).toEqual([]);
  });

  it('keeps a verified email and drops an unverified one', async () => {
    const verified = await h
      .client(await h.token(unique('v'), { email: `${unique('v')}@x.test`, emailVerified: true }))
      .me.get();
    const unverified = await h
      .client(await h.token(unique('u'), { email: `${unique('u')}@x.test` }))
      .me.get();
    expect(verified.status === 200 && verified.body.data.user.email).toMatch(/@x\.test$/);
    expect(unverified.status === 200 && unverified.body.data.user.email).toBeNull();
  });

  it('lets a verified email claim an invitation, case-insensitively, and an unverified one not', async () => {
    const admin = await createSuperAdmin(h);
    const email = `${unique('Invitee')}@School.test`;
    const created = await admin.api.tenants.create({
      body: { name: 'Invite school', slug: unique('invite'), owner: { email, displayName: 'Invitee' } },
    });
    expect(created.status).toBe(201);

    const impostor = await h
      .client(await h.token(unique('impostor'), { email, emailVerified: false }))
      .me.get();
    expect(impostor.status === 200 && impostor.body.data.memberships).toEqual([]);

    const invitee = await h
      .client(await h.token(unique('invitee'), { email: email.toLowerCase(), emailVerified: true }))
      .me.get();
    expect(invitee.status).toBe(200);
    if (invitee.status !== 200 || created.status !== 201) return;
    // From the sign-in on, the person's own claims are the source: the address as their token
    // gives it, and no name, since this token carries none (the inviter's name stays the tenant's).
    expect(invitee.body.data.user).toMatchObject({ email: email.toLowerCase(), displayName: null });
    expect(invitee.body.data.memberships).toEqual([
      expect.objectContaining({ tenantId: created.body.data.tenantId, role: 'OWNER', roleLevel: 40 }),
    ]);
  });

  it('reads the super-administrator flag from the database on every request', async () => {
    const actor = await createActor(h);
    expect((await actor.api.tenants.list({ query: {} })).status).toBe(403);
    const { grantSuperAdmin, revokeSuperAdmin } = await import(
      '../../src/modules/users/super-admins.service.js'
    );
    await grantSuperAdmin(h.db, actor.subject);
    expect((await actor.api.tenants.list({ query: {} })).status).toBe(200);
    await revokeSuperAdmin(h.db, actor.subject);
    const refused = await actor.api.tenants.list({ query: {} });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'SUPER_ADMIN_REQUIRED' } });
  });
});

describe('issuer and audience', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({
      database: h.database,
      verifier: { secret: TEST_SECRET, issuer: 'https://idp.test', audience: 'tms' },
    });
  });
  afterAll(() => strict?.close());

  it.each([
    ['no iss or aud', {}, 401],
    ['the wrong issuer', { iss: 'https://evil.test', aud: 'tms' }, 401],
    ['the wrong audience', { iss: 'https://idp.test', aud: 'other' }, 401],
    ['the configured issuer and audience', { iss: 'https://idp.test', aud: 'tms' }, 200],
  ])('a token with %s answers %i', async (_name, claims, status) => {
    const token = await signHs({ sub: unique('iss'), ...claims });
    expect((await meWith(`Bearer ${token}`, strict)).status).toBe(status);
  });
});

describe('tokens verified against a JWKS', () => {
  let jwksServer: Server;
  let viaJwks: TestServer;
  let rsKey: PrivateKey;
  let esKey: PrivateKey;
  let jwks: JWK[] = [];

  beforeAll(async () => {
    const rs = await generateKeyPair('RS256');
    const es = await generateKeyPair('ES256');
    rsKey = rs.privateKey;
    esKey = es.privateKey;
    jwks = [
      { ...(await exportJWK(rs.publicKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(es.publicKey)), kid: 'es-1', alg: 'ES256', use: 'sig' },
    ];
    jwksServer = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: jwks }));
    }).listen(0, '127.0.0.1');
    await once(jwksServer, 'listening');
    const { port } = jwksServer.address() as AddressInfo;
    viaJwks = await startTestServer({
      database: h.database,
      verifier: { jwksUrl: `http://127.0.0.1:${port}/jwks.json` },
    });
  });
  afterAll(async () => {
    await viaJwks?.close();
    jwksServer?.close();
  });

  const sign = (alg: 'RS256' | 'ES256', kid: string, privateKey: PrivateKey) =>
    new SignJWT({})
      .setProtectedHeader({ alg, kid })
      .setSubject(unique('idp'))
      .setExpirationTime('5m')
      .sign(privateKey);

  it('accepts RS256 and ES256 tokens signed by a published key', async () => {
    expect((await meWith(`Bearer ${await sign('RS256', 'rs-1', rsKey)}`, viaJwks)).status).toBe(200);
    expect((await meWith(`Bearer ${await sign('ES256', 'es-1', esKey)}`, viaJwks)).status).toBe(200);
  });

  it('refuses an HS256 token, and a key that is not published', async () => {
    expect((await meWith(`Bearer ${await signHs({ sub: 'x' })}`, viaJwks)).status).toBe(401);
    const stranger = await generateKeyPair('RS256');
    const token = await sign('RS256', 'rs-unknown', stranger.privateKey);
    expect((await meWith(`Bearer ${token}`, viaJwks)).status).toBe(401);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the JWKS cannot be reached', async () => {
    const unreachable = await startTestServer({
      database: h.database,
      verifier: { jwksUrl: 'http://127.0.0.1:9/jwks.json' },
    });
    try {
      const res = await meWith(`Bearer ${await sign('RS256', 'rs-1', rsKey)}`, unreachable);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      await unreachable.close();
    }
  });
});
