import { ApiError, createClient, isApiError, NetworkError, type ResponseCode } from '@tms/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, createActor, createSuperAdmin, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

let h: TestServer;
let admin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

/** What a frontend would write: which message to show for which failure. */
function messageFor(error: unknown): string {
  if (error instanceof NetworkError) return 'offline';
  if (!isApiError(error)) throw error;
  const code: ResponseCode = error.code;
  switch (code) {
    case 'LAST_OWNER':
      return 'a school needs an owner';
    case 'TENANT_SLUG_TAKEN':
      return 'pick another address';
    default:
      return code;
  }
}

describe('the SDK against a live server', () => {
  it('covers every route, answering resources rather than envelopes', async () => {
    let refreshed = 0;
    const sdk = createClient({
      baseUrl: `${h.baseUrl}/`,
      token: async () => {
        refreshed += 1;
        return admin.token;
      },
    });
    const owner = await createActor(h);
    const tenant = await sdk.tenants.create({
      name: 'SDK School',
      slug: unique('sdk'),
      owner: { userId: owner.userId },
    });
    expect(tenant).toMatchObject({ name: 'SDK School' });
    expect(await sdk.tenants.get(tenant.tenantId)).toEqual(tenant);
    expect((await sdk.tenants.update(tenant.tenantId, { name: 'SDK Academy' })).name).toBe('SDK Academy');
    expect((await sdk.tenants.list({ q: tenant.slug })).items.map((t) => t.tenantId)).toEqual([
      tenant.tenantId,
    ]);

    const student = await sdk.memberships.create(tenant.tenantId, {
      role: 'STUDENT',
      email: `${unique('kid')}@sdk.test`,
    });
    expect(student).toMatchObject({
      role: 'STUDENT',
      roleLevel: 10,
      version: 1,
      user: { displayName: null },
    });
    expect(await sdk.memberships.get(tenant.tenantId, student.tenantMembershipId)).toEqual(student);
    const teacher = await sdk.memberships.update(
      tenant.tenantId,
      student.tenantMembershipId,
      { role: 'TEACHER' },
      { ifMatch: 1 },
    );
    expect(teacher).toMatchObject({ role: 'TEACHER', version: 2 });
    const all = [];
    for await (const membership of sdk.memberships.listAll(tenant.tenantId, { limit: 1 }))
      all.push(membership.role);
    expect(all).toEqual(['OWNER', 'TEACHER']);
    await sdk.memberships.remove(tenant.tenantId, student.tenantMembershipId);
    expect((await sdk.memberships.list(tenant.tenantId)).items).toHaveLength(1);

    expect((await sdk.me()).user).toMatchObject({ userId: admin.userId, isSuperAdmin: true });
    expect(await sdk.health.live()).toEqual({ status: 'ok' });
    expect(await sdk.health.ready()).toEqual({ status: 'ok' });
    expect((await sdk.health.report()).status).toBe('ok');

    await sdk.tenants.remove(tenant.tenantId);
    expect(refreshed).toBeGreaterThan(10);
  });

  it('walks every page of tenants with listAll', async () => {
    const sdk = createClient({ baseUrl: h.baseUrl, token: admin.token });
    const tag = unique('walk');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await sdk.tenants.create({
            name: `Walk ${i}`,
            slug: `${tag}-${i}`,
            owner: { email: `${tag}-${i}@w.test` },
          })
        ).tenantId,
      );
    }
    const seen: string[] = [];
    for await (const tenant of sdk.tenants.listAll({ q: tag, limit: 2 })) seen.push(tenant.tenantId);
    expect(seen).toEqual(ids);
  });

  it('throws ApiError with a typed code, status, request id and field details', async () => {
    const sdk = createClient({ baseUrl: h.baseUrl, token: admin.token });
    const owner = await createActor(h);
    const tenant = await sdk.tenants.create({
      name: 'Errors',
      slug: unique('err'),
      owner: { userId: owner.userId },
    });
    const [ownerMembership] = (await sdk.memberships.list(tenant.tenantId)).items;
    if (!ownerMembership) throw new Error('no owner membership');

    const lastOwner = await sdk.memberships
      .remove(tenant.tenantId, ownerMembership.tenantMembershipId)
      .catch((e: unknown) => e);
    expect(lastOwner).toBeInstanceOf(ApiError);
    expect(isApiError(lastOwner, 'LAST_OWNER')).toBe(true);
    expect(messageFor(lastOwner)).toBe('a school needs an owner');
    if (isApiError(lastOwner)) {
      expect(lastOwner.status).toBe(409);
      expect(lastOwner.requestId).toMatch(/^[0-9a-f-]{36}$/);
    }

    const invalid = await sdk.tenants
      .create({ name: '', slug: 'x', owner: { email: 'nope' } })
      .catch((e: unknown) => e);
    expect(isApiError(invalid, 'VALIDATION_FAILED') && invalid.details.map((d) => d.path)).toEqual(
      expect.arrayContaining(['body.name', 'body.slug']),
    );

    const anonymous = createClient({ baseUrl: h.baseUrl });
    expect(messageFor(await anonymous.me().catch((e: unknown) => e))).toBe('UNAUTHENTICATED');
  });

  it('tells a network failure apart from an API error', async () => {
    const sdk = createClient({ baseUrl: 'http://127.0.0.1:9', token: admin.token });
    const error = await sdk.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(isApiError(error)).toBe(false);
    expect(messageFor(error)).toBe('offline');
  });
});
