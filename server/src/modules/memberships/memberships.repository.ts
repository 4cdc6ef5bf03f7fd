import type { MembershipStatus, Role } from '@tms/contract';
import { and, eq, type Placeholder, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type MembershipRow, tenantMemberships, users } from '../../db/schema.js';
import { statusOf } from '../../rules/membership-status.sql.js';

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
  managedBy: tenantMemberships.managedBy,
  externalId: tenantMemberships.externalId,
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
