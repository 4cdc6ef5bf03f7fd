import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships, users } from '../../src/db/schema.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';

let h: TestServer;
let admin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

const MISSING = '01900000-0000-7000-8000-000000000000';

describe('POST /admin/tenants', () => {
  it('creates the tenant and its OWNER in one go', async () => {
    const owner = await createActor(h);
    const slug = unique('school');
    const res = await admin.api.tenants.create({
      body: { name: '  Green Valley School ', slug, owner: { userId: owner.userId } },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    if (res.status !== 201) return;
    expect(res.body).toEqual({
      success: true,
      data: {
        tenantId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        slug,
        name: 'Green Valley School',
        version: 1,
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
        deletedAt: null,
        purgeAfter: null,
      },
    });
    const me = await owner.api.me.get();
    expect(me.status === 200 && me.body.data.memberships).toEqual([
      expect.objectContaining({ tenantId: res.body.data.tenantId, tenantSlug: slug, role: 'OWNER' }),
    ]);
  });

  it('invites an owner named by an unknown email', async () => {
    const email = `${unique('head')}@school.test`;
    const res = await admin.api.tenants.create({
      body: { name: 'Invited', slug: unique('inv'), owner: { email } },
    });
    expect(res.status).toBe(201);
    const [invited] = await h.db.select().from(users).where(eq(users.email, email));
    expect(invited).toMatchObject({ subject: null, email });
  });

  it('refuses an owner id that names no user, and creates nothing', async () => {
    const slug = unique('orphan');
    const res = await admin.api.tenants.create({
      body: { name: 'Orphan', slug, owner: { userId: MISSING } },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: 'USER_NOT_FOUND' } });
    const list = await admin.api.tenants.list({ query: { q: slug } });
    expect(list.status === 200 && list.body.data).toEqual([]);
  });

  it('answers 409 TENANT_SLUG_TAKEN and leaves no invited user behind', async () => {
    const taken = await createTenantFixture(h);
    const email = `${unique('late')}@school.test`;
    const res = await admin.api.tenants.create({
      body: { name: 'Copy', slug: taken.slug, owner: { email } },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: 'TENANT_SLUG_TAKEN' } });
    expect(await h.db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });

  it('gives exactly one 201 when the same slug is created in parallel', async () => {
    const owner = await createActor(h);
    const slug = unique('race');
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        admin.api.tenants.create({ body: { name: 'Race', slug, owner: { userId: owner.userId } } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
  });

  it.each([
    ['a slug with capitals', { name: 'X', slug: 'Acme', owner: { email: 'a@b.test' } }, 'body.slug'],
    ['a slug ending with a dash', { name: 'X', slug: 'acme-', owner: { email: 'a@b.test' } }, 'body.slug'],
    ['a two-letter slug', { name: 'X', slug: 'ab', owner: { email: 'a@b.test' } }, 'body.slug'],
    ['a 64-letter slug', { name: 'X', slug: 'a'.repeat(64), owner: { email: 'a@b.test' } }, 'body.slug'],
    ['a blank name', { name: '   ', slug: 'blank-name', owner: { email: 'a@b.test' } }, 'body.name'],
    [
      'a 201-character name',
      { name: 'n'.repeat(201), slug: 'long-name', owner: { email: 'a@b.test' } },
      'body.name',
    ],
    ['no owner', { name: 'X', slug: 'no-owner' }, 'body.owner'],
    [
      'an owner with a bad email',
      { name: 'X', slug: 'bad-email', owner: { email: 'nope' } },
      'body.owner.email',
    ],
    [
      'an owner with both id and email',
      { name: 'X', slug: 'both', owner: { userId: MISSING, email: 'a@b.test' } },
      'body.owner',
    ],
    [
      'an unknown field',
      { name: 'X', slug: 'extra-field', owner: { email: 'a@b.test' }, plan: 'gold' },
      'body',
    ],
    [
      'a NUL character in the name',
      { name: 'Evil\u0000School', slug: 'nul-name', owner: { email: 'a@b.test' } },
      'body.name',
    ],
  ])('refuses %s with VALIDATION_FAILED and field details', async (_name, body, path) => {
    const res = await fetch(`${h.baseUrl}/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    const json = await jsonOf(res);
    expect(json.error.code).toBe('VALIDATION_FAILED');
    expect(json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });
});

describe('GET /admin/tenants', () => {
  it('pages in creation order with an opaque cursor, with no duplicate and no gap', async () => {
    const tag = unique('page');
    const created: string[] = [];
    for (let i = 0; i < 5; i++)
      created.push((await createTenantFixture(h, undefined, `${tag}-${i}`)).tenantId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await admin.api.tenants.list({ query: { q: tag, limit: 2, cursor } });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((t) => t.tenantId));
      cursor = res.body.meta.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(created);
  });

  it('finds tenants by a case-insensitive part of the name or the slug, and treats % and _ literally', async () => {
    const tag = unique('find');
    const byName = await createTenantFixture(h, undefined, `${tag}-a`, `Saint ${tag.toUpperCase()} College`);
    const bySlug = await createTenantFixture(h, undefined, `${tag}-b`);
    const res = await admin.api.tenants.list({ query: { q: tag.toUpperCase() } });
    expect(res.status === 200 && res.body.data.map((t) => t.tenantId)).toEqual([
      byName.tenantId,
      bySlug.tenantId,
    ]);
    const wildcard = await admin.api.tenants.list({ query: { q: '%_%' } });
    expect(wildcard.status === 200 && wildcard.body.data).toEqual([]);
  });

  it.each([
    ['limit=0', '?limit=0', 'query.limit'],
    ['limit=101', '?limit=101', 'query.limit'],
    ['limit=abc', '?limit=abc', 'query.limit'],
    ['a forged cursor', '?cursor=bm90LWEtY3Vyc29y', 'query.cursor'],
    ['a NUL character in q', '?q=a%00b', 'query.q'],
  ])('refuses %s', async (_name, query, path) => {
    const res = await fetch(`${h.baseUrl}/admin/tenants${query}`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(res.status).toBe(400);
    const json = await jsonOf(res);
    expect(json.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ path })],
    });
  });

  it('defaults to pages of 20', async () => {
    for (let i = 0; i < 21; i++) await createTenantFixture(h);
    const res = await admin.api.tenants.list({ query: {} });
    expect(res.status === 200 && res.body.data.length).toBe(20);
    expect(res.status === 200 && res.body.meta.nextCursor).toEqual(expect.any(String));
  });
});

describe('GET, PATCH, DELETE /admin/tenants/:tenantId', () => {
  it('reads a tenant, and answers 404 TENANT_NOT_FOUND for a missing one', async () => {
    const tenant = await createTenantFixture(h);
    const res = await admin.api.tenants.get({ params: { tenantId: tenant.tenantId } });
    expect(res.status === 200 && res.body.data.slug).toBe(tenant.slug);
    const missing = await admin.api.tenants.get({ params: { tenantId: MISSING } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'TENANT_NOT_FOUND' } });
  });

  it('renames a tenant and changes its slug', async () => {
    const tenant = await createTenantFixture(h);
    const slug = unique('renamed');
    const res = await admin.api.tenants.update({
      params: { tenantId: tenant.tenantId },
      body: { name: 'Renamed', slug },
    });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expect(res.body.data).toMatchObject({ name: 'Renamed', slug });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.data.createdAt));
  });

  it('refuses an empty change, a taken slug, and a missing tenant', async () => {
    const [a, b] = [await createTenantFixture(h), await createTenantFixture(h)];
    const empty = await admin.api.tenants.update({ params: { tenantId: a.tenantId }, body: {} });
    expect(empty.status).toBe(400);
    const taken = await admin.api.tenants.update({
      params: { tenantId: a.tenantId },
      body: { slug: b.slug },
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ error: { code: 'TENANT_SLUG_TAKEN' } });
    const missing = await admin.api.tenants.update({
      params: { tenantId: MISSING },
      body: { name: 'Ghost' },
    });
    expect(missing.status).toBe(404);
  });

  it('deletes a tenant softly: missing from then on, its memberships kept (soft-delete.test.ts)', async () => {
    const tenant = await createTenantFixture(h);
    await addMember(h, tenant.tenantId, 'TEACHER');
    await addMember(h, tenant.tenantId, 'STUDENT');
    const res = await fetch(`${h.baseUrl}/admin/tenants/${tenant.tenantId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const [left] = await h.db
      .select({ n: count() })
      .from(tenantMemberships)
      .where(eq(tenantMemberships.tenantId, tenant.tenantId));
    expect(left?.n).toBe(3);
    expect((await admin.api.tenants.get({ params: { tenantId: tenant.tenantId } })).status).toBe(404);
    expect((await admin.api.tenants.remove({ params: { tenantId: tenant.tenantId } })).status).toBe(404);
  });

  it('refuses a tenant id that is not a UUID with VALIDATION_FAILED on params', async () => {
    const res = await admin.api.tenants.get({ params: { tenantId: 'not-a-uuid' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: { details: [expect.objectContaining({ path: 'params.tenantId' })] },
    });
  });
});

describe('platform routes are for super administrators only', () => {
  it('refuses an OWNER of a tenant with 403 SUPER_ADMIN_REQUIRED, before looking at the request', async () => {
    const tenant = await createTenantFixture(h);
    const owner = tenant.owner.api;
    const calls = [
      owner.tenants.list({ query: {} }),
      owner.tenants.get({ params: { tenantId: tenant.tenantId } }),
      owner.tenants.update({ params: { tenantId: tenant.tenantId }, body: { name: 'Mine now' } }),
      owner.tenants.remove({ params: { tenantId: tenant.tenantId } }),
      owner.tenants.create({ body: { name: '', slug: 'X', owner: { email: 'bad' } } }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'SUPER_ADMIN_REQUIRED' } });
    }
    expect((await admin.api.tenants.get({ params: { tenantId: tenant.tenantId } })).status).toBe(200);
  });
});

describe('x-tenant-id', () => {
  it('is refused with 400 TENANT_ID_MISMATCH when it differs from the URL, and ignored when equal', async () => {
    const [a, b] = [await createTenantFixture(h), await createTenantFixture(h)];
    const get = (header: string) =>
      fetch(`${h.baseUrl}/admin/tenants/${a.tenantId}`, {
        headers: { authorization: `Bearer ${admin.token}`, 'x-tenant-id': header },
      });
    const mismatch = await get(b.tenantId);
    expect(mismatch.status).toBe(400);
    expect((await jsonOf(mismatch)).error.code).toBe('TENANT_ID_MISMATCH');
    expect((await get(a.tenantId)).status).toBe(200);
    const del = await fetch(`${h.baseUrl}/admin/tenants/${a.tenantId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin.token}`, 'x-tenant-id': b.tenantId },
    });
    expect(del.status).toBe(400);
    expect((await admin.api.tenants.get({ params: { tenantId: a.tenantId } })).status).toBe(200);
  });
});
