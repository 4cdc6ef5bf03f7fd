import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys } from '../../src/db/schema.js';
import { claimKey } from '../../src/idempotency/idempotency.repository.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError, setRoleInDb, tenantState, uniqueEmail } from '../support/memberships.js';

// Idempotency-Key on every POST (IETF httpapi draft): the same key and body replay the first
// answer for 24 h, a different body is 422, a request still running is 409; keys are per caller.

let h: TestServer;
let admin: Actor;

beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
});
afterAll(() => h.close());

const withKey = (key: string) => ({ 'idempotency-key': key });

type Answer = { status: number; body: unknown };
type Send = (url: string, headers: Record<string, string>, body: string) => Promise<Answer>;

const viaFetch: Send = async (url, headers, body) => {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: await res.json() };
};

/** Header values go out as latin1 bytes (`é` as 0xE9), unchecked beyond control characters. */
const viaNodeHttp: Send = (url, headers, body) =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    // A Buffer, not a string: node writes the headers with a string body's encoding (UTF-8, `é`
    // as 0xC3 0xA9), and in latin1 only when they go out alone.
    req.end(Buffer.from(body));
  });

async function addByEmail(
  api: Actor['api'],
  tenantId: string,
  key: string,
  email: string,
  role = 'TEACHER' as const,
) {
  return api.memberships.create({ params: { tenantId }, headers: withKey(key), body: { role, email } });
}

describe('a retried POST', () => {
  it('replays the first answer (status, body, ETag) and acts once', async () => {
    const t = await createTenantFixture(h);
    const key = randomUUID();
    const email = uniqueEmail('idem');
    const first = await addByEmail(t.owner.api, t.tenantId, key, email);
    const again = await addByEmail(t.owner.api, t.tenantId, key, email);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await tenantState(h.db, t.tenantId)).toHaveLength(2);
  });

  it('replays a tenant creation too (a platform route, no tenant transaction)', async () => {
    const key = randomUUID();
    const slug = unique('idem-tenant');
    const body = { name: slug, slug, owner: { userId: admin.userId } };
    const first = await admin.api.tenants.create({ headers: withKey(key), body });
    const again = await admin.api.tenants.create({ headers: withKey(key), body });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
  });

  it('with a different body is refused with 422 IDEMPOTENCY_KEY_REUSED, and nothing is done', async () => {
    const t = await createTenantFixture(h);
    const key = randomUUID();
    expect((await addByEmail(t.owner.api, t.tenantId, key, uniqueEmail('a'))).status).toBe(201);
    expectError(
      await addByEmail(t.owner.api, t.tenantId, key, uniqueEmail('b')),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await tenantState(h.db, t.tenantId)).toHaveLength(2);
  });

  it('while the first still runs is 409 IDEMPOTENCY_KEY_IN_FLIGHT, and nothing is done', async () => {
    const t = await createTenantFixture(h);
    const key = randomUUID();
    await claimKey(h.db, t.owner.userId, key, randomUUID());
    expectError(
      await addByEmail(t.owner.api, t.tenantId, key, uniqueEmail('busy')),
      409,
      'IDEMPOTENCY_KEY_IN_FLIGHT',
    );
    expect(await tenantState(h.db, t.tenantId)).toHaveLength(1);
  });

  it('takes over a claim abandoned by a process that died mid-request', async () => {
    const t = await createTenantFixture(h);
    const key = randomUUID();
    await claimKey(h.db, t.owner.userId, key, randomUUID());
    await h.db
      .update(idempotencyKeys)
      .set({ claimedAt: sql`now() - interval '5 minutes'` })
      .where(and(eq(idempotencyKeys.userId, t.owner.userId), eq(idempotencyKeys.key, key)));
    expect((await addByEmail(t.owner.api, t.tenantId, key, uniqueEmail('late'))).status).toBe(201);
  });

  it('after 24 h the key is free again', async () => {
    const t = await createTenantFixture(h);
    const key = randomUUID();
    expect((await addByEmail(t.owner.api, t.tenantId, key, uniqueEmail('old'))).status).toBe(201);
    await h.db
      .update(idempotencyKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(idempotencyKeys.userId, t.owner.userId), eq(idempotencyKeys.key, key)));
    expect((await addByEmail(t.owner.api, t.tenantId, key, uniqueEmail('new'))).status).toBe(201);
    expect(await tenantState(h.db, t.tenantId)).toHaveLength(3);
  });
});

describe('keys', () => {
  it('are per caller: the same key from someone else is another request', async () => {
    const t = await createTenantFixture(h);
    const other = (await addMember(h, t.tenantId, 'ADMIN')).actor;
    const key = randomUUID();
    expect((await addByEmail(t.owner.api, t.tenantId, key, uniqueEmail('mine'))).status).toBe(201);
    expect((await addByEmail(other.api, t.tenantId, key, uniqueEmail('theirs'))).status).toBe(201);
    expect(await tenantState(h.db, t.tenantId)).toHaveLength(4);
  });

  it('do not keep errors: after a refusal, the same key and body run again', async () => {
    const t = await createTenantFixture(h);
    const member = await createActor(h);
    const key = randomUUID();
    const body = { role: 'STUDENT' as const, userId: member.userId };
    const params = { tenantId: t.tenantId };
    const { membershipId } = await addMember(h, t.tenantId, 'TEACHER', member);
    expectError(
      await t.owner.api.memberships.create({ params, headers: withKey(key), body }),
      409,
      'MEMBERSHIP_ALREADY_EXISTS',
    );
    await t.owner.api.memberships.remove({
      params: { tenantId: t.tenantId, tenantMembershipId: membershipId },
    });
    expect((await t.owner.api.memberships.create({ params, headers: withKey(key), body })).status).toBe(201);
  });

  it('replay only to a caller who may still make the request', async () => {
    const t = await createTenantFixture(h);
    const { actor, membershipId } = await addMember(h, t.tenantId, 'ADMIN');
    const key = randomUUID();
    const email = uniqueEmail('demoted');
    expect((await addByEmail(actor.api, t.tenantId, key, email)).status).toBe(201);
    await setRoleInDb(h.db, membershipId, 'STUDENT');
    expectError(await addByEmail(actor.api, t.tenantId, key, email), 403, 'INSUFFICIENT_ROLE');
  });

  it.each([
    ['empty', '', viaFetch],
    ['too long', 'k'.repeat(256), viaFetch],
    ['with a space', 'two words', viaFetch],
    // Not by fetch: whether it sends a value that is not ASCII or refuses it before sending (a
    // TypeError) depends on its undici's version. node:http sends the bytes every time.
    ['not ASCII', 'clé', viaNodeHttp],
  ])('that are malformed (%s) are 400 VALIDATION_FAILED', async (_label, key, send) => {
    const t = await createTenantFixture(h);
    const res = await send(
      `${h.baseUrl}/tenants/${t.tenantId}/memberships`,
      {
        authorization: `Bearer ${t.owner.token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      JSON.stringify({ role: 'STUDENT', email: uniqueEmail('bad-key') }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});
