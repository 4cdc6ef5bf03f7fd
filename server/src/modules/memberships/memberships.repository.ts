import type { Role } from '@tms/contract';
import { and, asc, count, eq, gt, ilike, or, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type MembershipRow, tenantMemberships, users } from '../../db/schema.js';
import { likePattern } from '../tenants/tenants.repository.js';

export type MembershipWithUser = MembershipRow & {
  user: { email: string | null; displayName: string | null };
};

const withUser = {
  id: tenantMemberships.id,
  tenantId: tenantMemberships.tenantId,
  userId: tenantMemberships.userId,
  role: tenantMemberships.role,
  version: tenantMemberships.version,
  createdAt: tenantMemberships.createdAt,
  updatedAt: tenantMemberships.updatedAt,
  user: { email: users.email, displayName: users.displayName },
};

/** The scope rule lives in the query: a membership of another tenant is simply not found. */
const inTenant = (tenantId: string | Placeholder, membershipId: string | Placeholder) =>
  and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.id, membershipId));

export async function insertMembership(
  db: Executor,
  row: { tenantId: string; userId: string; role: Role },
): Promise<MembershipRow> {
  const [inserted] = await db
    .insert(tenantMemberships)
    .values({ id: uuidv7(), ...row })
    .returning();
  if (!inserted) throw new Error('insert into tenant_memberships returned no row');
  return inserted;
}

const membershipInTenant = preparedPer((db) =>
  db
    .select(withUser)
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(inTenant(sql.placeholder('tenantId'), sql.placeholder('membershipId')))
    .limit(1)
    .prepare('membership_in_tenant'),
);

export async function findMembership(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<MembershipWithUser | undefined> {
  const [row] = await membershipInTenant(db).execute({ tenantId, membershipId });
  return row;
}

export async function listMemberships(
  db: Executor,
  options: { tenantId: string; afterId?: string; role?: Role; q?: string; limit: number },
): Promise<MembershipWithUser[]> {
  const conditions: (SQL | undefined)[] = [
    eq(tenantMemberships.tenantId, options.tenantId),
    options.afterId ? gt(tenantMemberships.id, options.afterId) : undefined,
    options.role ? eq(tenantMemberships.role, options.role) : undefined,
    options.q
      ? or(ilike(users.email, likePattern(options.q)), ilike(users.displayName, likePattern(options.q)))
      : undefined,
  ];
  return db
    .select(withUser)
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(and(...conditions))
    .orderBy(asc(tenantMemberships.id))
    .limit(options.limit);
}

export async function updateMembershipRole(
  db: Executor,
  tenantId: string,
  membershipId: string,
  role: Role,
): Promise<MembershipRow | undefined> {
  const [row] = await db
    .update(tenantMemberships)
    .set({ role, version: sql`${tenantMemberships.version} + 1`, updatedAt: sql`now()` })
    .where(inTenant(tenantId, membershipId))
    .returning();
  return row;
}

export async function deleteMembership(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<boolean> {
  const rows = await db
    .delete(tenantMemberships)
    .where(inTenant(tenantId, membershipId))
    .returning({ id: tenantMemberships.id });
  return rows.length > 0;
}

export async function countOwners(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ owners: count() })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.role, 'OWNER')));
  return row?.owners ?? 0;
}
