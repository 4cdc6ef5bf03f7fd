import type { MembershipStatus, Role } from '@tms/contract';
import { and, asc, eq, inArray, type Placeholder, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type MembershipRow, tenantMemberships, tenants, users } from '../../db/schema.js';
import { isActive, statusOf } from './membership-status.sql.js';

export type MembershipWithUser = MembershipRow & {
  status: MembershipStatus;
  user: { email: string | null; displayName: string | null };
};

/**
 * A membership's columns as the service reads them (not `search`, which is the index's), with its
 * status as of the statement's transaction.
 */
export const membershipColumns = {
  id: tenantMemberships.id,
  tenantId: tenantMemberships.tenantId,
  userId: tenantMemberships.userId,
  role: tenantMemberships.role,
  invitedDisplayName: tenantMemberships.invitedDisplayName,
  version: tenantMemberships.version,
  createdAt: tenantMemberships.createdAt,
  updatedAt: tenantMemberships.updatedAt,
  startsAt: tenantMemberships.startsAt,
  endsAt: tenantMemberships.endsAt,
  suspendedAt: tenantMemberships.suspendedAt,
  suspensionReason: tenantMemberships.suspensionReason,
  status: statusOf().as('status'),
};

export const withUser = {
  ...membershipColumns,
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

/** Membership reads are tenant routes: their statements are gated by the tenant-admin rule. */
export const TENANT_READ = { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') } as const;

const membershipWithCaller = preparedPer((db) =>
  selectWithCaller(db, TENANT_READ, (gate) =>
    db
      .select(withUser)
      .from(tenantMemberships)
      .innerJoin(users, eq(users.id, tenantMemberships.userId))
      .where(and(gate, inTenant(sql.placeholder('tenantId'), sql.placeholder('membershipId'))))
      .limit(1),
  ).prepare('membership_with_caller'),
);

/** The caller (with its role in the tenant) and the membership, in one statement. */
export async function findMembershipAs(
  db: Executor,
  subject: string,
  tenantId: string,
  membershipId: string,
): Promise<CallerRead<MembershipWithUser>> {
  return callerReadOf(await membershipWithCaller(db).execute({ subject, tenantId, membershipId }));
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

const stateOf = (name: 'mine' | 'theirs') => ({
  suspendedAt: sql.raw(`${name}.suspended_at`),
  startsAt: sql.raw(`${name}.starts_at`),
  endsAt: sql.raw(`${name}.ends_at`),
});

/**
 * Gives one user's memberships to another (an invited user claimed by someone who had already
 * signed in). Where both belong to a tenant the one that does more for it is kept, its term and
 * suspension with its role: the higher role, or at the same role the ACTIVE one. So no tenant
 * loses an ACTIVE OWNER (the claimant's own membership there may be suspended or ended). The rest
 * are moved. What remains on `fromUserId` goes when that user is deleted.
 */
export async function moveMemberships(db: Executor, fromUserId: string, toUserId: string): Promise<void> {
  // The role enum is declared highest first (OWNER < ADMIN < …), so "<" reads "higher than".
  await db.execute(sql`
    update tenant_memberships as mine
    set role = theirs.role, starts_at = theirs.starts_at, ends_at = theirs.ends_at,
      suspended_at = theirs.suspended_at, suspension_reason = theirs.suspension_reason,
      version = mine.version + 1, updated_at = now()
    from tenant_memberships as theirs
    where mine.user_id = ${toUserId} and theirs.user_id = ${fromUserId} and theirs.tenant_id = mine.tenant_id
      and (theirs.role < mine.role
        or (theirs.role = mine.role and ${isActive(stateOf('theirs'))} and not ${isActive(stateOf('mine'))}))`);
  await db.execute(sql`
    update tenant_memberships
    set user_id = ${toUserId}, version = version + 1, updated_at = now()
    where user_id = ${fromUserId}
      and tenant_id not in (select tenant_id from tenant_memberships where user_id = ${toUserId})`);
}
