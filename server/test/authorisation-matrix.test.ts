import { randomUUID } from 'node:crypto';
import { type Contract, contract, HTTP_STATUS, type ResponseCode, type Role } from '@tms/contract';
import { type AppRoute, isAppRoute } from '@ts-rest/core';
import { eq, inArray } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships, tenants } from '../src/db/schema.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from './factories.js';
import { startTestServer, TEST_SECRET, type TestServer } from './harness.js';

/**
 * Every route of the contract, crossed with every kind of caller and every kind of target. Each
 * cell states the exact answer the access rules give (docs/access.md), and every refused request must leave the
 * tenants it names untouched.
 */
let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const CALLERS = [
  'anonymous',
  'malformed',
  'expired',
  'STUDENT',
  'TEACHER',
  'ADMIN',
  'OWNER',
  'superAdmin',
  'otherOwner',
] as const;
const TARGETS = ['ownTenant', 'otherTenant', 'missingTenant', 'otherTenantsMembership'] as const;
type CallerKind = (typeof CALLERS)[number];
type Target = (typeof TARGETS)[number];

/** The world of one cell: tenant A (the URL's, normally) with one member per role, and tenant B. */
type World = {
  a: { tenantId: string; members: Record<Role, Actor>; studentMembershipId: string };
  b: { tenantId: string; owner: Actor; studentMembershipId: string };
  superAdmin: Actor;
  outsider: Actor;
};

async function buildWorld(): Promise<World> {
  const a = await createTenantFixture(h);
  const b = await createTenantFixture(h);
  const members = { OWNER: a.owner } as Record<Role, Actor>;
  let studentMembershipId = '';
  for (const role of ['ADMIN', 'TEACHER', 'STUDENT'] as const) {
    const added = await addMember(h, a.tenantId, role);
    members[role] = added.actor;
    if (role === 'STUDENT') studentMembershipId = added.membershipId;
  }
  const bStudent = await addMember(h, b.tenantId, 'STUDENT');
  return {
    a: { tenantId: a.tenantId, members, studentMembershipId },
    b: { tenantId: b.tenantId, owner: b.owner, studentMembershipId: bStudent.membershipId },
    superAdmin: await createSuperAdmin(h),
    outsider: await createActor(h),
  };
}

async function authorization(kind: CallerKind, world: World): Promise<string | undefined> {
  switch (kind) {
    case 'anonymous':
      return undefined;
    case 'malformed':
      return 'Bearer this.is-not.a-token';
    case 'expired':
      return `Bearer ${await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(world.superAdmin.subject)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 120)
        .sign(new TextEncoder().encode(TEST_SECRET))}`;
    case 'superAdmin':
      return `Bearer ${world.superAdmin.token}`;
    case 'otherOwner':
      return `Bearer ${world.b.owner.token}`;
    default:
      return `Bearer ${world.a.members[kind].token}`;
  }
}

const MISSING_TENANT = '01900000-0000-7000-8000-00000000dead';

/** The URL's tenant and membership for a target. */
function place(target: Target, world: World) {
  switch (target) {
    case 'ownTenant':
      return { tenantId: world.a.tenantId, membershipId: world.a.studentMembershipId };
    case 'otherTenant':
      return { tenantId: world.b.tenantId, membershipId: world.b.studentMembershipId };
    case 'missingTenant':
      return { tenantId: MISSING_TENANT, membershipId: randomUUID() };
    case 'otherTenantsMembership':
      return { tenantId: world.a.tenantId, membershipId: world.b.studentMembershipId };
  }
}

type RouteKey = { [G in keyof Contract]: `${G & string}.${keyof Contract[G] & string}` }[keyof Contract];
type Request = { path: string; body?: unknown; success: number };

/** One valid request per route; a route added to the contract without one here fails to compile. */
const REQUESTS = {
  'tenants.create': (_p, w) => ({
    path: '/admin/tenants',
    body: { name: 'Matrix', slug: unique('matrix'), owner: { userId: w.outsider.userId } },
    success: 201,
  }),
  'tenants.list': () => ({ path: '/admin/tenants?limit=1', success: 200 }),
  'tenants.get': (p) => ({ path: `/admin/tenants/${p.tenantId}`, success: 200 }),
  'tenants.update': (p) => ({
    path: `/admin/tenants/${p.tenantId}`,
    body: { name: 'Renamed by matrix' },
    success: 200,
  }),
  'tenants.remove': (p) => ({ path: `/admin/tenants/${p.tenantId}`, success: 204 }),
  'memberships.list': (p) => ({ path: `/tenants/${p.tenantId}/memberships`, success: 200 }),
  'memberships.get': (p) => ({ path: `/tenants/${p.tenantId}/memberships/${p.membershipId}`, success: 200 }),
  'memberships.create': (p, w) => ({
    path: `/tenants/${p.tenantId}/memberships`,
    body: { role: 'STUDENT', userId: w.outsider.userId },
    success: 201,
  }),
  'memberships.update': (p) => ({
    path: `/tenants/${p.tenantId}/memberships/${p.membershipId}`,
    body: { role: 'TEACHER' },
    success: 200,
  }),
  'memberships.remove': (p) => ({
    path: `/tenants/${p.tenantId}/memberships/${p.membershipId}`,
    success: 204,
  }),
  'me.get': () => ({ path: '/me', success: 200 }),
  'health.live': () => ({ path: '/health/live', success: 200 }),
  'health.ready': () => ({ path: '/health/ready', success: 200 }),
  'health.report': () => ({ path: '/health', success: 200 }),
} satisfies Record<RouteKey, (p: ReturnType<typeof place>, w: World) => Request>;

const routes: [RouteKey, AppRoute][] = Object.entries(contract).flatMap(([group, router]) =>
  Object.entries(router).flatMap(([name, route]) =>
    isAppRoute(route) ? [[`${group}.${name}` as RouteKey, route] as [RouteKey, AppRoute]] : [],
  ),
);

/** The role a caller kind holds in the URL's tenant. */
function roleIn(kind: CallerKind, target: Target): Role | undefined {
  if (kind === 'otherOwner') return target === 'otherTenant' ? 'OWNER' : undefined;
  if (kind === 'STUDENT' || kind === 'TEACHER' || kind === 'ADMIN' || kind === 'OWNER') {
    return target === 'ownTenant' || target === 'otherTenantsMembership' ? kind : undefined;
  }
  return undefined;
}

/** The access rules of docs/access.md, cell by cell. */
function expected(route: AppRoute, kind: CallerKind, target: Target, success: number): number | ResponseCode {
  const access = (route.metadata as { access: string }).access;
  if (access === 'public') return success;
  if (kind === 'anonymous' || kind === 'malformed' || kind === 'expired') return 'UNAUTHENTICATED';
  if (access === 'authenticated') return success;
  const takesTenant = route.path.includes(':tenantId');
  const takesMembership = route.path.includes(':tenantMembershipId');
  if (access === 'superAdmin') {
    if (kind !== 'superAdmin') return 'SUPER_ADMIN_REQUIRED';
    return takesTenant && target === 'missingTenant' ? 'TENANT_NOT_FOUND' : success;
  }
  if (kind === 'superAdmin') {
    if (target === 'missingTenant') return 'TENANT_NOT_FOUND';
  } else {
    const role = roleIn(kind, target);
    if (!role) return 'TENANT_ACCESS_DENIED';
    if (role === 'STUDENT' || role === 'TEACHER') return 'INSUFFICIENT_ROLE';
  }
  if (takesMembership && target === 'otherTenantsMembership') return 'MEMBERSHIP_NOT_FOUND';
  return success;
}

/** Targets that mean something different for a route; the others would repeat a cell. */
function targetsOf(route: AppRoute): readonly Target[] {
  if (route.path.includes(':tenantMembershipId')) return TARGETS;
  if (route.path.includes(':tenantId')) return ['ownTenant', 'otherTenant', 'missingTenant'];
  return ['ownTenant'];
}

async function snapshot(world: World) {
  const ids = [world.a.tenantId, world.b.tenantId];
  const tenantRows = await h.db.select().from(tenants).where(inArray(tenants.id, ids)).orderBy(tenants.id);
  const membershipRows = await h.db
    .select()
    .from(tenantMemberships)
    .where(inArray(tenantMemberships.tenantId, ids))
    .orderBy(tenantMemberships.id);
  return JSON.stringify({ tenantRows, membershipRows });
}

const cells = routes.flatMap(([key, route]) =>
  CALLERS.flatMap((kind) => targetsOf(route).map((target) => [key, kind, target, route] as const)),
);

describe('the authorisation matrix', () => {
  it('covers every route of the contract', () => {
    expect(routes.map(([key]) => key).sort()).toEqual(Object.keys(REQUESTS).sort());
  });

  it.each(
    cells.map(([key, kind, target, route]) => [`${route.method} ${key}`, kind, target, key, route] as const),
  )('%s as %s on %s', async (_name, kind, target, key, route) => {
    const world = await buildWorld();
    const request: Request = REQUESTS[key](place(target, world), world);
    const want = expected(route, kind, target, request.success);
    const before = await snapshot(world);
    const auth = await authorization(kind, world);
    const res = await fetch(`${h.baseUrl}${request.path}`, {
      method: route.method,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(request.body ? { 'content-type': 'application/json' } : {}),
      },
      body: request.body ? JSON.stringify(request.body) : undefined,
    });
    const text = await res.text();
    if (typeof want === 'number') {
      expect(res.status, text).toBe(want);
      return;
    }
    expect(res.status, text).toBe(HTTP_STATUS[want]);
    expect(JSON.parse(text).error.code).toBe(want);
    expect(await snapshot(world)).toBe(before);
    // A refused caller must not even have been half-served: the tenant is still there, intact.
    const [still] = await h.db
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, world.a.tenantId));
    expect(still).toBeDefined();
  });
});
