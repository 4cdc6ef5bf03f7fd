import { randomUUID } from 'node:crypto';
import type { RawClient } from '@tms/client';
import type { ResponseCode, Role } from '@tms/contract';
import { and, asc, count, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { tenantMemberships } from '../../src/db/schema.js';
import { addMember, createTenantFixture, unique } from './factories.js';
import type { TestServer } from './harness.js';

/** What every typed client call answers, whatever the route. */
export type AnyResponse = { status: number; body: unknown; headers: Headers };

export const errorCodeOf = (res: AnyResponse): string | undefined =>
  (res.body as { error?: { code?: string } } | undefined)?.error?.code;

/** Status and code in one assertion, so that a failure shows both (and the message). */
export function expectError(res: AnyResponse, status: number, code: ResponseCode): void {
  const message = (res.body as { error?: { message?: string } } | undefined)?.error?.message;
  expect({ status: res.status, code: errorCodeOf(res) }, message).toEqual({ status, code });
}

/** A well-formed id that names nothing. */
export const missingId = () => randomUUID();

export const uniqueEmail = (prefix = 'user') => `${unique(prefix)}@example.test`;

export type MembershipState = { id: string; userId: string; role: Role; version: number; updatedAt: string };

const stateColumns = {
  id: tenantMemberships.id,
  userId: tenantMemberships.userId,
  role: tenantMemberships.role,
  version: tenantMemberships.version,
  updatedAt: tenantMemberships.updatedAt,
};
const toState = (row: { updatedAt: Date } & Omit<MembershipState, 'updatedAt'>): MembershipState => ({
  ...row,
  updatedAt: row.updatedAt.toISOString(),
});

/** A tenant's memberships read straight from the database, bypassing the API under test. */
export async function tenantState(db: Database, tenantId: string): Promise<MembershipState[]> {
  const rows = await db
    .select(stateColumns)
    .from(tenantMemberships)
    .where(eq(tenantMemberships.tenantId, tenantId))
    .orderBy(asc(tenantMemberships.id));
  return rows.map(toState);
}

export async function membershipRow(db: Database, id: string): Promise<MembershipState | undefined> {
  const [row] = await db.select(stateColumns).from(tenantMemberships).where(eq(tenantMemberships.id, id));
  return row && toState(row);
}

export async function ownerCount(db: Database, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.role, 'OWNER')));
  return row?.n ?? 0;
}

/** Sets a role behind the API's back, as an operator or another process would. */
export async function setRoleInDb(db: Database, membershipId: string, role: Role): Promise<void> {
  await db.update(tenantMemberships).set({ role }).where(eq(tenantMemberships.id, membershipId));
}

export const ROUTES = ['list', 'get', 'create', 'update', 'remove'] as const;
export type RouteName = (typeof ROUTES)[number];

/**
 * Calls one membership route with arguments that would succeed for an authorised caller, so that
 * any refusal comes from the rule under test. `update` demotes to STUDENT, `remove` deletes: give
 * a target that may be changed.
 */
export function callRoute(
  api: RawClient,
  route: RouteName,
  target: { tenantId: string; membershipId: string },
  headers: { 'x-tenant-id'?: string } = {},
): Promise<AnyResponse> {
  const { tenantId, membershipId } = target;
  const params = { tenantId, tenantMembershipId: membershipId };
  switch (route) {
    case 'list':
      return api.memberships.list({ params: { tenantId }, headers });
    case 'get':
      return api.memberships.get({ params, headers });
    case 'create':
      return api.memberships.create({
        params: { tenantId },
        body: { role: 'STUDENT', email: uniqueEmail('new') },
        headers,
      });
    case 'update':
      return api.memberships.update({ params, body: { role: 'STUDENT' }, headers });
    case 'remove':
      return api.memberships.remove({ params, headers });
  }
}

/** The success status of each route. */
export const SUCCESS: Record<RouteName, number> = {
  list: 200,
  get: 200,
  create: 201,
  update: 200,
  remove: 204,
};

/** A fresh tenant with exactly two ACTIVE OWNERs: A, who made it, and B, added; each signed in. */
export async function twoOwners(h: TestServer) {
  const t = await createTenantFixture(h);
  const b = await addMember(h, t.tenantId, 'OWNER');
  const owners = {
    A: { actor: t.owner, membershipId: t.ownerMembershipId },
    B: { actor: b.actor, membershipId: b.membershipId },
  };
  return { tenantId: t.tenantId, owners };
}

export type TwoOwners = Awaited<ReturnType<typeof twoOwners>>;

/** One of two racing requests against a tenant's two OWNERs: what it did, to which membership. */
export type OwnerMove = { kind: 'demote' | 'delete'; membershipId: string };

/**
 * After two conflicting last-owner requests: an OWNER is left, exactly one request was refused
 * LAST_OWNER, and each answer says what happened to its membership (refused: untouched).
 */
export function expectOneLastOwnerRefusal(
  moves: readonly [OwnerMove, OwnerMove],
  answers: readonly AnyResponse[],
  rows: readonly { id: string; role: string; version: number }[],
  context: string,
): void {
  expect(rows.filter((r) => r.role === 'OWNER').length, context).toBeGreaterThanOrEqual(1);
  expect(
    answers.filter((r) => r.status === 409 && errorCodeOf(r) === 'LAST_OWNER'),
    context,
  ).toHaveLength(1);
  moves.forEach((move, i) => {
    const res = answers[i];
    const row = rows.find((r) => r.id === move.membershipId);
    if (res?.status === 409) {
      expect(row, context).toMatchObject({ role: 'OWNER', version: 1 });
    } else if (move.kind === 'demote') {
      expect(res?.status, context).toBe(200);
      expect(row, context).toMatchObject({ role: 'ADMIN', version: 2 });
    } else {
      expect(res?.status, context).toBe(204);
      expect(row, context).toBeUndefined();
    }
  });
}

/**
 * The answer once the server decided: a request the server shed under load (429 TENANT_BUSY, 503
 * SERVICE_OVERLOADED, when the machine is busy) is sent again, as a client honouring Retry-After
 * would, so that every request of a race ends with what the rules decided.
 */
export async function decided(send: () => Promise<AnyResponse>): Promise<AnyResponse> {
  for (let attempt = 0; ; attempt++) {
    const res = await send();
    const shed = (res.status === 429 && errorCodeOf(res) === 'TENANT_BUSY') || res.status === 503;
    if (!shed || attempt === 50) return res;
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
  }
}
