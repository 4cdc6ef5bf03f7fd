import type { Role } from '@tms/contract';
import { and, asc, count, eq, inArray, type Placeholder, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type MembershipRow, tenantMemberships, tenants, users } from '../../db/schema.js';

export type MembershipWithUser = MembershipRow & {
  user: { email: string | null; displayName: string | null };
};

export const withUser = {
  id: tenantMemberships.id,
  tenantId: tenantMemberships.tenantId,
  userId: tenantMemberships.userId,
  role: tenantMemberships.role,
  invitedDisplayName: tenantMemberships.invitedDisplayName,
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
  row: { tenantId: string; userId: string; role: Role; invitedDisplayName?: string | null },
): Promise<MembershipRow> {
  const [inserted] = await db
    .insert(tenantMemberships)
    .values({ id: uuidv7(), ...row })
    .returning()
    .prepare('insert_membership')
    .execute();
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
    .returning()
    .prepare('update_membership_role')
    .execute();
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
    .returning({ id: tenantMemberships.id })
    .prepare('delete_membership')
    .execute();
  return rows.length > 0;
}

export async function countOwners(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ owners: count() })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.role, 'OWNER')))
    .prepare('count_owners')
    .execute();
  return row?.owners ?? 0;
}

/**
 * Locks the tenants these users belong to, in the one order every such writer follows (by id), so
 * that changing their memberships waits for, and is waited on by, each tenant's membership writes.
 */
export async function lockTenantsOfUsers(db: Executor, userIds: string[]): Promise<void> {
  const theirTenants = db
    .select({ tenantId: tenantMemberships.tenantId })
    .from(tenantMemberships)
    .where(inArray(tenantMemberships.userId, userIds));
  await db
    .select({ id: tenants.id })
    .from(tenants)
    .where(inArray(tenants.id, theirTenants))
    .orderBy(asc(tenants.id))
    .for('update');
}

/**
 * Gives one user's memberships to another (an invited user claimed by someone who had already
 * signed in). Where both belong to a tenant the higher role is kept, so no tenant loses an OWNER;
 * the rest are moved. What remains on `fromUserId` goes when that user is deleted.
 */
export async function moveMemberships(db: Executor, fromUserId: string, toUserId: string): Promise<void> {
  // The role enum is declared highest first (OWNER < ADMIN < …), so "<" reads "higher than".
  await db.execute(sql`
    update tenant_memberships as mine
    set role = theirs.role, version = mine.version + 1, updated_at = now()
    from tenant_memberships as theirs
    where mine.user_id = ${toUserId} and theirs.user_id = ${fromUserId}
      and theirs.tenant_id = mine.tenant_id and theirs.role < mine.role`);
  await db.execute(sql`
    update tenant_memberships
    set user_id = ${toUserId}, version = version + 1, updated_at = now()
    where user_id = ${fromUserId}
      and tenant_id not in (select tenant_id from tenant_memberships where user_id = ${toUserId})`);
}
