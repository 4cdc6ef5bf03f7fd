import { createRawClient } from '@tms/client';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { revokeSuperAdmin } from '../../src/modules/users/super-admins.service.js';
import { addMember, createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { untilWaitingForLocks } from '../support/lock-waits.js';
import {
  type AnyResponse,
  callRoute,
  expectError,
  missingId,
  ROUTES,
  SUCCESS,
  setRoleInDb,
  tenantState,
} from '../support/memberships.js';
import { testDatabaseKind } from '../support/test-database.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** A tenant with its OWNER and a TEACHER, the target of get/update/remove. */
async function tenantWithTarget() {
  const tenant = await createTenantFixture(h);
  const teacher = await addMember(h, tenant.tenantId, 'TEACHER');
  return { ...tenant, target: { tenantId: tenant.tenantId, membershipId: teacher.membershipId } };
}

/** Runs all five routes in an order that succeeds for an authorised caller: update, then remove. */
async function runAllRoutes(
  api: Parameters<typeof callRoute>[0],
  target: { tenantId: string; membershipId: string },
  headers: { 'x-tenant-id'?: string } = {},
) {
  const answers: [string, AnyResponse][] = [];
  for (const route of ROUTES) answers.push([route, await callRoute(api, route, target, headers)]);
  return answers;
}

const statusesOf = (answers: [string, AnyResponse][]) =>
  Object.fromEntries(answers.map(([route, res]) => [route, res.status]));

describe('a caller who is not a member', () => {
  it('is refused TENANT_ACCESS_DENIED on every route, alike for an existing and a missing tenant', async () => {
    const t = await tenantWithTarget();
    // An OWNER elsewhere is still a stranger here.
    const stranger = (await createTenantFixture(h)).owner;
    const before = await tenantState(h.db, t.tenantId);
    for (const route of ROUTES) {
      const existing = await callRoute(stranger.api, route, t.target);
      const missing = await callRoute(stranger.api, route, {
        tenantId: missingId(),
        membershipId: missingId(),
      });
      expectError(existing, 403, 'TENANT_ACCESS_DENIED');
      expectError(missing, 403, 'TENANT_ACCESS_DENIED');
      // Nothing in the answer may tell the two apart, or tenant ids could be probed.
      const { requestId: _a, ...existingError } = (existing.body as { error: { requestId: string } }).error;
      const { requestId: _b, ...missingError } = (missing.body as { error: { requestId: string } }).error;
      expect(existingError, route).toEqual(missingError);
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });
});

describe('a member below ADMIN', () => {
  it.each(['TEACHER', 'STUDENT'] as const)('%s is refused INSUFFICIENT_ROLE on every route', async (role) => {
    const t = await tenantWithTarget();
    const member = await addMember(h, t.tenantId, role);
    const before = await tenantState(h.db, t.tenantId);
    for (const [route, res] of await runAllRoutes(member.actor.api, t.target)) {
      expect(res.status, route).toBe(403);
      expectError(res, 403, 'INSUFFICIENT_ROLE');
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });
});

describe('OWNER and ADMIN', () => {
  it.each(['OWNER', 'ADMIN'] as const)('%s may use every route', async (role) => {
    const t = await tenantWithTarget();
    const caller = role === 'OWNER' ? t.owner : (await addMember(h, t.tenantId, 'ADMIN')).actor;
    expect(statusesOf(await runAllRoutes(caller.api, t.target))).toEqual(SUCCESS);
  });
});

describe('a super administrator', () => {
  it('may use every route of a tenant it does not belong to', async () => {
    const admin = await createSuperAdmin(h);
    const t = await tenantWithTarget();
    expect(statusesOf(await runAllRoutes(admin.api, t.target))).toEqual(SUCCESS);
  });

  it('is told TENANT_NOT_FOUND for a missing tenant on every route', async () => {
    const admin = await createSuperAdmin(h);
    for (const route of ROUTES) {
      const res = await callRoute(admin.api, route, { tenantId: missingId(), membershipId: missingId() });
      expectError(res, 404, 'TENANT_NOT_FOUND');
    }
  });
});

describe('roles are read from the database on every request', () => {
  it('an ADMIN demoted in the database is refused on its next request, same token', async () => {
    const t = await tenantWithTarget();
    const admin = await addMember(h, t.tenantId, 'ADMIN');
    expect((await callRoute(admin.actor.api, 'list', t.target)).status).toBe(200);
    await setRoleInDb(h.db, admin.membershipId, 'TEACHER');
    expectError(await callRoute(admin.actor.api, 'list', t.target), 403, 'INSUFFICIENT_ROLE');
    expectError(await callRoute(admin.actor.api, 'create', t.target), 403, 'INSUFFICIENT_ROLE');
    await setRoleInDb(h.db, admin.membershipId, 'ADMIN');
    expect((await callRoute(admin.actor.api, 'get', t.target)).status).toBe(200);
  });

  it('an ADMIN demoted, then removed, through the API is refused at once', async () => {
    const t = await tenantWithTarget();
    const admin = await addMember(h, t.tenantId, 'ADMIN');
    const params = { tenantId: t.tenantId, tenantMembershipId: admin.membershipId };
    expect((await t.owner.api.memberships.update({ params, body: { role: 'STUDENT' } })).status).toBe(200);
    expectError(await callRoute(admin.actor.api, 'update', t.target), 403, 'INSUFFICIENT_ROLE');
    expect((await t.owner.api.memberships.remove({ params })).status).toBe(204);
    expectError(await callRoute(admin.actor.api, 'list', t.target), 403, 'TENANT_ACCESS_DENIED');
  });

  it('a super administrator whose flag is revoked loses access at once', async () => {
    const admin = await createSuperAdmin(h);
    const t = await tenantWithTarget();
    expect((await callRoute(admin.api, 'list', t.target)).status).toBe(200);
    await revokeSuperAdmin(h.db, admin.subject);
    expectError(await callRoute(admin.api, 'list', t.target), 403, 'TENANT_ACCESS_DENIED');
  });

  // Several connections are needed to hold the tenant lock while a request waits for it.
  it.runIf(testDatabaseKind() === 'postgres')(
    'a write queued behind the tenant lock is judged by the role committed while it waited',
    async () => {
      const url = h.database.url;
      if (!url) throw new Error('the PostgreSQL test database has no URL');
      const sql = postgres(url, { max: 2, onnotice: () => {} });
      try {
        for (const route of ['create', 'update', 'remove'] as const) {
          const t = await tenantWithTarget();
          const admin = await addMember(h, t.tenantId, 'ADMIN');
          const before = await tenantState(h.db, t.tenantId);
          let pending: Promise<AnyResponse> | undefined;
          await sql.begin(async (tx) => {
            await tx`select id from tenants where id = ${t.tenantId} for update`;
            await tx`update tenant_memberships set role = 'STUDENT' where id = ${admin.membershipId}`;
            // The guard before the transaction still sees the committed ADMIN and lets it through.
            pending = callRoute(admin.actor.api, route, t.target);
            await untilWaitingForLocks(sql);
          });
          if (!pending) throw new Error('no request was sent');
          expectError(await pending, 403, 'INSUFFICIENT_ROLE');
          const after = await tenantState(h.db, t.tenantId);
          expect(after.filter((m) => m.id !== admin.membershipId)).toEqual(
            before.filter((m) => m.id !== admin.membershipId),
          );
        }
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  );
});

describe('x-tenant-id', () => {
  it('is refused with TENANT_ID_MISMATCH on every route when it differs from the URL', async () => {
    const t = await tenantWithTarget();
    // The header names a tenant the caller owns too: it must not be used to pick it.
    const other = await createTenantFixture(h, t.owner);
    const before = await tenantState(h.db, t.tenantId);
    for (const header of [other.tenantId, 'not-a-uuid']) {
      for (const [route, res] of await runAllRoutes(t.owner.api, t.target, { 'x-tenant-id': header })) {
        expect(res.status, route).toBe(400);
        expectError(res, 400, 'TENANT_ID_MISMATCH');
      }
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    expect(await tenantState(h.db, other.tenantId)).toHaveLength(1);
  });

  it.each([
    ['no header', (_id: string) => undefined],
    ['an equal header', (id: string) => id],
    ['an equal header in upper case', (id: string) => id.toUpperCase()],
  ])('changes nothing with %s', async (_label, headerFor) => {
    const t = await tenantWithTarget();
    const header = headerFor(t.tenantId);
    const headers = header === undefined ? {} : { 'x-tenant-id': header };
    expect(statusesOf(await runAllRoutes(t.owner.api, t.target, headers))).toEqual(SUCCESS);
  });
});

describe('authentication', () => {
  it('a missing or invalid token gets 401 UNAUTHENTICATED with WWW-Authenticate on every route', async () => {
    const t = await tenantWithTarget();
    const sub = t.owner.subject;
    const callers = {
      none: h.client(),
      garbage: h.client('not-a-jwt'),
      wrongSecret: h.client(await signDevToken('another-secret-of-at-least-32-bytes!!', { sub })),
      expired: h.client(await h.token(sub, { ttl: '-1h' })),
      basicScheme: createRawClient({ baseUrl: h.baseUrl, headers: { authorization: 'Basic b3duZXI6cHc=' } }),
    };
    const before = await tenantState(h.db, t.tenantId);
    for (const [name, api] of Object.entries(callers)) {
      for (const [route, res] of await runAllRoutes(api, t.target)) {
        expect(res.status, `${name} ${route}`).toBe(401);
        expectError(res, 401, 'UNAUTHENTICATED');
        expect(res.headers.get('www-authenticate'), `${name} ${route}`).toMatch(/^Bearer\b/);
      }
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });
});
