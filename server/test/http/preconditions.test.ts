import { createClient, isApiError } from '@tms/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenants } from '../../src/db/schema.js';
import { type Actor, addMember, createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError, membershipRow } from '../support/memberships.js';

/** The tenant's row as the database holds it. */
const tenantRow = async (id: string) => (await h.db.select().from(tenants).where(eq(tenants.id, id)))[0];

// ETag / If-Match (RFC 9110 §13.1.1) on memberships and tenants alike: GET and every change answer
// the ETag; PATCH and DELETE refuse with 412 when If-Match names another version. If-Match
// compares strongly, so a weak tag never matches.

let h: TestServer;
let admin: Actor;

beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
});
afterAll(() => h.close());

describe('memberships', () => {
  async function student() {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    return { t, params: { tenantId: t.tenantId, tenantMembershipId: member.membershipId } };
  }

  it('PATCH refuses a weak tag with 412 even when its version is current', async () => {
    const { t, params } = await student();
    const weak = await t.owner.api.memberships.update({
      params,
      body: { role: 'TEACHER' },
      headers: { 'if-match': 'W/"1"' },
    });
    expectError(weak, 412, 'PRECONDITION_FAILED');
    expect(await membershipRow(h.db, params.tenantMembershipId)).toMatchObject({
      role: 'STUDENT',
      version: 1,
    });
  });

  it('DELETE honours If-Match: 412 when stale or weak, nothing removed; 204 when it matches', async () => {
    const { t, params } = await student();
    for (const tag of ['"2"', 'W/"1"', '1']) {
      const refused = await t.owner.api.memberships.remove({ params, headers: { 'if-match': tag } });
      expectError(refused, 412, 'PRECONDITION_FAILED');
    }
    expect(await membershipRow(h.db, params.tenantMembershipId)).toMatchObject({ version: 1 });
    const removed = await t.owner.api.memberships.remove({ params, headers: { 'if-match': '"0", "1"' } });
    expect(removed.status).toBe(204);
    expect(await membershipRow(h.db, params.tenantMembershipId)).toBeUndefined();
  });

  it('DELETE with If-Match: * removes whatever the version', async () => {
    const { t, params } = await student();
    expect((await t.owner.api.memberships.remove({ params, headers: { 'if-match': '*' } })).status).toBe(204);
  });
});

describe('tenants', () => {
  it('GET answers an ETag; PATCH with a matching If-Match changes it and bumps it', async () => {
    const t = await createTenantFixture(h);
    const params = { tenantId: t.tenantId };
    const got = await admin.api.tenants.get({ params });
    expect(got.headers.get('etag')).toBe('"1"');
    expect(got.status === 200 && got.body.data.version).toBe(1);

    const renamed = await admin.api.tenants.update({
      params,
      body: { name: 'Renamed' },
      headers: { 'if-match': '"1"' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get('etag')).toBe('"2"');
    expect(renamed.status === 200 && renamed.body.data).toMatchObject({ name: 'Renamed', version: 2 });
  });

  it('PATCH refuses a stale or weak If-Match with 412 and changes nothing', async () => {
    const t = await createTenantFixture(h);
    const params = { tenantId: t.tenantId };
    for (const tag of ['"2"', 'W/"1"']) {
      const refused = await admin.api.tenants.update({
        params,
        body: { name: 'Lost update' },
        headers: { 'if-match': tag },
      });
      expectError(refused, 412, 'PRECONDITION_FAILED');
    }
    expect(await tenantRow(t.tenantId)).toMatchObject({ name: `Tenant ${t.slug}`, version: 1 });
  });

  it('DELETE refuses a stale If-Match with 412 and deletes with a matching one', async () => {
    const t = await createTenantFixture(h);
    const params = { tenantId: t.tenantId };
    await admin.api.tenants.update({ params, body: { name: 'Moved on' } });
    const stale = await admin.api.tenants.remove({ params, headers: { 'if-match': '"1"' } });
    expectError(stale, 412, 'PRECONDITION_FAILED');
    expect(await tenantRow(t.tenantId)).toMatchObject({ deletedAt: null });
    expect((await admin.api.tenants.remove({ params, headers: { 'if-match': '"2"' } })).status).toBe(204);
    expect(await tenantRow(t.tenantId)).toMatchObject({ deletedAt: expect.any(Date), version: 3 });
  });

  it('a missing tenant is 404 whatever If-Match says', async () => {
    const params = { tenantId: crypto.randomUUID() };
    expectError(
      await admin.api.tenants.remove({ params, headers: { 'if-match': '"1"' } }),
      404,
      'TENANT_NOT_FOUND',
    );
  });
});

describe('the SDK', () => {
  it('sends `ifMatch` as If-Match on tenant and membership changes', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const sdk = createClient({ baseUrl: h.baseUrl, token: admin.token });
    const stale = { ifMatch: 7 };
    await expect(sdk.tenants.update(t.tenantId, { name: 'x' }, stale)).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(sdk.memberships.remove(t.tenantId, member.membershipId, stale)).rejects.toSatisfy((e) =>
      isApiError(e, 'PRECONDITION_FAILED'),
    );
    await sdk.memberships.remove(t.tenantId, member.membershipId, { ifMatch: 1 });
    await sdk.tenants.remove(t.tenantId, { ifMatch: 1 });
    expect(await tenantRow(t.tenantId)).toMatchObject({ deletedAt: expect.any(Date) });
  });
});
