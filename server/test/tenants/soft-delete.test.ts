import { createClient } from '@tms/client';
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships, tenants } from '../../src/db/schema.js';
import { purgeDeletedTenants } from '../../src/modules/tenants/tenant-deletion.service.js';
import {
  type Actor,
  addMember,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';

let h: TestServer;
let admin: Actor;
let sdk: ReturnType<typeof createClient>;
beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
  sdk = createClient({ baseUrl: h.baseUrl, token: admin.token, retries: false });
});
afterAll(() => h?.close());

const DAY_MS = 86_400_000;
const RETENTION = { days: 30 };
const MISSING = '01900000-0000-7000-8000-000000000000';

const notFound = { status: 404, code: 'TENANT_NOT_FOUND' };
const membershipCount = async (tenantId: string) =>
  (
    await h.db.select({ n: count() }).from(tenantMemberships).where(eq(tenantMemberships.tenantId, tenantId))
  )[0]?.n;
const tenantRow = async (id: string) => (await h.db.select().from(tenants).where(eq(tenants.id, id)))[0];
/** Moves a deletion back in time: how the tests reach the end of the retention without waiting. */
const deletedDaysAgo = (tenantId: string, days: number) =>
  h.db
    .update(tenants)
    .set({ deletedAt: sql`now() - make_interval(days => ${days})` })
    .where(eq(tenants.id, tenantId));

/** A tenant with an OWNER, a TEACHER and a STUDENT, deleted through the API. */
async function deletedTenant() {
  const t = await createTenantFixture(h);
  const teacher = await addMember(h, t.tenantId, 'TEACHER');
  await addMember(h, t.tenantId, 'STUDENT');
  await sdk.tenants.remove(t.tenantId);
  return { ...t, teacher };
}

describe('DELETE /admin/tenants/:tenantId marks the tenant deleted', () => {
  it('answers 204, and from then on the platform routes answer 404 TENANT_NOT_FOUND', async () => {
    const t = await createTenantFixture(h);
    const res = await admin.api.tenants.remove({ params: { tenantId: t.tenantId } });
    expect(res.status).toBe(204);
    await expect(sdk.tenants.get(t.tenantId)).rejects.toMatchObject(notFound);
    await expect(sdk.tenants.update(t.tenantId, { name: 'Ghost' })).rejects.toMatchObject(notFound);
    // The tenant is missing before its version is compared: 404, not 412.
    await expect(sdk.tenants.update(t.tenantId, { name: 'Ghost' }, { ifMatch: 2 })).rejects.toMatchObject(
      notFound,
    );
    await expect(sdk.tenants.remove(t.tenantId)).rejects.toMatchObject(notFound);
    await expect(sdk.tenants.remove(t.tenantId, { ifMatch: 2 })).rejects.toMatchObject(notFound);
  });

  it('keeps If-Match: a stale version is 412 and leaves the tenant active', async () => {
    const t = await createTenantFixture(h);
    await sdk.tenants.update(t.tenantId, { name: 'Moved on' });
    await expect(sdk.tenants.remove(t.tenantId, { ifMatch: 1 })).rejects.toMatchObject({
      status: 412,
      code: 'PRECONDITION_FAILED',
    });
    expect((await sdk.tenants.get(t.tenantId)).deletedAt).toBeNull();
    await sdk.tenants.remove(t.tenantId, { ifMatch: 2 });
    expect(await tenantRow(t.tenantId)).toMatchObject({ deletedAt: expect.any(Date), version: 3 });
  });

  it('closes the tenant routes: a super administrator gets 404 TENANT_NOT_FOUND, a former member 403 TENANT_ACCESS_DENIED', async () => {
    const t = await deletedTenant();
    const params = { tenantId: t.tenantId };
    for (const res of [
      await admin.api.memberships.list({ params, query: {} }),
      await admin.api.memberships.get({ params: { ...params, tenantMembershipId: t.ownerMembershipId } }),
      await admin.api.memberships.create({ params, body: { role: 'STUDENT', email: 'late@x.test' } }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { code: 'TENANT_NOT_FOUND' } });
    }
    const owner = t.owner.api;
    for (const res of [
      await owner.memberships.list({ params, query: {} }),
      await owner.memberships.get({ params: { ...params, tenantMembershipId: t.ownerMembershipId } }),
      await owner.memberships.update({
        params: { ...params, tenantMembershipId: t.teacher.membershipId },
        body: { role: 'STUDENT' },
      }),
      await owner.memberships.remove({ params: { ...params, tenantMembershipId: t.teacher.membershipId } }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'TENANT_ACCESS_DENIED' } });
    }
    const me = await owner.me.get();
    expect(me.status === 200 && me.body.data.memberships).toEqual([]);
  });

  it('keeps the slug taken: creating a tenant with it, or renaming another to it, is 409 TENANT_SLUG_TAKEN', async () => {
    const t = await deletedTenant();
    await expect(
      sdk.tenants.create({ name: 'Copycat', slug: t.slug, owner: { email: `${unique('c')}@x.test` } }),
    ).rejects.toMatchObject({ status: 409, code: 'TENANT_SLUG_TAKEN' });
    const other = await createTenantFixture(h);
    await expect(sdk.tenants.update(other.tenantId, { slug: t.slug })).rejects.toMatchObject({
      status: 409,
      code: 'TENANT_SLUG_TAKEN',
    });
  });

  it('loses nothing: the memberships stay in the database', async () => {
    const t = await deletedTenant();
    expect(await membershipCount(t.tenantId)).toBe(3);
    expect(await tenantRow(t.tenantId)).toMatchObject({ slug: t.slug, name: `Tenant ${t.slug}` });
  });
});

describe('GET /admin/tenants?status=', () => {
  it('lists the active tenants by default and the deleted ones with status=DELETED, with deletedAt and purgeAfter', async () => {
    const tag = unique('listed');
    const active = await createTenantFixture(h, undefined, `${tag}-active`);
    const gone = await createTenantFixture(h, undefined, `${tag}-gone`);
    await sdk.tenants.remove(gone.tenantId);

    const byDefault = await sdk.tenants.list({ q: tag });
    expect(byDefault.items).toEqual([
      expect.objectContaining({ tenantId: active.tenantId, deletedAt: null, purgeAfter: null }),
    ]);
    expect((await sdk.tenants.list({ q: tag, status: 'ACTIVE' })).items).toEqual(byDefault.items);

    const deleted = [];
    for await (const tenant of sdk.tenants.listAll({ q: tag, status: 'DELETED', limit: 1 }))
      deleted.push(tenant);
    expect(deleted).toEqual([
      expect.objectContaining({ tenantId: gone.tenantId, slug: gone.slug, version: 2 }),
    ]);
    const [listed] = deleted;
    const deletedAt = Date.parse(listed?.deletedAt ?? '');
    expect(Math.abs(deletedAt - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(listed?.purgeAfter ?? '')).toBe(deletedAt + 30 * DAY_MS);
  });

  it('refuses a status it does not know with 400 VALIDATION_FAILED on query.status', async () => {
    for (const status of ['GONE', 'deleted', '']) {
      const res = await fetch(`${h.baseUrl}/admin/tenants?status=${status}`, {
        headers: { authorization: `Bearer ${admin.token}` },
      });
      expect(res.status).toBe(400);
      expect((await jsonOf(res)).error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ path: 'query.status' })],
      });
    }
  });
});

describe('POST /admin/tenants/:tenantId/restore', () => {
  it('brings the tenant back within the retention, memberships and all, with its version bumped', async () => {
    const t = await deletedTenant();
    await deletedDaysAgo(t.tenantId, 29);
    const res = await admin.api.tenants.restore({ params: { tenantId: t.tenantId }, body: {} });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"3"');
    const restored = await sdk.tenants.get(t.tenantId);
    expect(restored).toMatchObject({ slug: t.slug, version: 3, deletedAt: null, purgeAfter: null });
    expect(res.body).toEqual({ success: true, data: restored });
    const members = await t.owner.api.memberships.list({ params: { tenantId: t.tenantId }, query: {} });
    expect(members.status === 200 && members.body.data.map((m) => m.role)).toEqual([
      'OWNER',
      'TEACHER',
      'STUDENT',
    ]);
    expect((await sdk.tenants.list({ q: t.slug, status: 'DELETED' })).items).toEqual([]);
  });

  it('answers an active tenant unchanged (a retried restore gets the same answer)', async () => {
    const t = await deletedTenant();
    const first = await sdk.tenants.restore(t.tenantId);
    expect(first.version).toBe(3);
    expect(await sdk.tenants.restore(t.tenantId)).toEqual(first);
    const never = await createTenantFixture(h);
    expect(await sdk.tenants.restore(never.tenantId)).toMatchObject({ version: 1, deletedAt: null });
  });

  it('is 404 TENANT_NOT_FOUND past the retention (the tenant still listed until purged), and for a missing tenant', async () => {
    const t = await deletedTenant();
    await deletedDaysAgo(t.tenantId, 31);
    await expect(sdk.tenants.restore(t.tenantId)).rejects.toMatchObject(notFound);
    const [listed] = (await sdk.tenants.list({ q: t.slug, status: 'DELETED' })).items;
    expect(Date.parse(listed?.purgeAfter ?? '')).toBeLessThan(Date.now());
    expect(await tenantRow(t.tenantId)).toMatchObject({ version: 2 });
    await expect(sdk.tenants.restore(MISSING)).rejects.toMatchObject(notFound);
  });

  it('takes no body, or an empty one: any field is 400 VALIDATION_FAILED, and nothing is restored', async () => {
    const t = await deletedTenant();
    const res = await fetch(`${h.baseUrl}/admin/tenants/${t.tenantId}/restore`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ force: true }),
    });
    expect(res.status).toBe(400);
    expect((await jsonOf(res)).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ path: 'body' })],
    });
    expect(await tenantRow(t.tenantId)).toMatchObject({ deletedAt: expect.any(Date) });
  });

  it('is for super administrators only, and validates the tenant id after access', async () => {
    const t = await deletedTenant();
    const refused = await t.owner.api.tenants.restore({ params: { tenantId: t.tenantId }, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'SUPER_ADMIN_REQUIRED' } });
    expect(await tenantRow(t.tenantId)).toMatchObject({ deletedAt: expect.any(Date) });
    const bad = await fetch(`${h.baseUrl}/admin/tenants/not-a-uuid/restore`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(bad.status).toBe(400);
    expect((await jsonOf(bad)).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ path: 'params.tenantId' })],
    });
  });

  it('replays its first answer for the same Idempotency-Key', async () => {
    const t = await deletedTenant();
    const key = unique('restore');
    const first = await sdk.tenants.restore(t.tenantId, { idempotencyKey: key });
    await sdk.tenants.remove(t.tenantId);
    const replayed = await admin.api.tenants.restore({
      params: { tenantId: t.tenantId },
      body: undefined,
      headers: { 'idempotency-key': key },
    });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual({ success: true, data: first });
    expect(await tenantRow(t.tenantId)).toMatchObject({ deletedAt: expect.any(Date) });
  });
});

describe('the purge', () => {
  const future = (days: number) => new Date(Date.now() + days * DAY_MS);
  const ours = (ids: string[], purged: { id: string }[]) =>
    purged.map((tenant) => tenant.id).filter((id) => ids.includes(id));

  it('removes for good, with what they hold, the tenants past their retention, and only those', async () => {
    const old = await deletedTenant();
    const recent = await deletedTenant();
    const active = await createTenantFixture(h);
    await deletedDaysAgo(old.tenantId, 10);
    const ids = [old.tenantId, recent.tenantId, active.tenantId];

    const early = await purgeDeletedTenants(h.db, RETENTION, { now: future(19) });
    expect(ours(ids, early)).toEqual([]);
    const purged = await purgeDeletedTenants(h.db, RETENTION, { now: future(21) });
    expect(ours(ids, purged)).toEqual([old.tenantId]);
    expect(purged.find((tenant) => tenant.id === old.tenantId)).toMatchObject({
      slug: old.slug,
      deletedAt: expect.any(Date),
    });

    expect(await tenantRow(old.tenantId)).toBeUndefined();
    expect(await membershipCount(old.tenantId)).toBe(0);
    await expect(sdk.tenants.restore(old.tenantId)).rejects.toMatchObject(notFound);
    expect((await sdk.tenants.list({ q: old.slug, status: 'DELETED' })).items).toEqual([]);
    // Gone for good: its slug is free again.
    const reborn = await sdk.tenants.create({
      name: 'Reborn',
      slug: old.slug,
      owner: { userId: old.owner.userId },
    });
    expect(reborn.tenantId).not.toBe(old.tenantId);

    expect(await membershipCount(recent.tenantId)).toBe(3);
    expect((await sdk.tenants.restore(recent.tenantId)).deletedAt).toBeNull();
    expect(ours(ids, await purgeDeletedTenants(h.db, RETENTION, { now: future(365) }))).toEqual([]);
    expect((await sdk.tenants.get(active.tenantId)).deletedAt).toBeNull();
  });

  it('works through any number of tenants, batch by batch', async () => {
    const batch = [];
    for (let i = 0; i < 5; i++) batch.push((await deletedTenant()).tenantId);
    const purged = await purgeDeletedTenants(h.db, RETENTION, { now: future(31), batchSize: 2 });
    expect(ours(batch, purged).sort()).toEqual([...batch].sort());
    for (const id of batch) expect(await tenantRow(id)).toBeUndefined();
  });
});
