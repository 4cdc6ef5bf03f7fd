import { and, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/database.js';
import { type MembershipRow, tenantMemberships, users } from '../../db/schema.js';
import { isActive } from './membership-status.sql.js';
import { type MembershipWithUser, membershipColumns } from './memberships.repository.js';

/*
 * What every change of one membership reads in its own statement, beside the change: the
 * membership as it was (with its status), and how many ACTIVE OWNERs the tenant had when it was
 * one. The service checks the rules on that after the statement; a refusal throws, and the
 * request's transaction (which holds the tenant's lock, see access/access.repository.ts) rolls the
 * change back. Nothing refused is seen.
 */

/** The membership as it was before the change, and, for an ACTIVE OWNER, how many ACTIVE OWNERs there were. */
export type Before = MembershipWithUser & { owners: number | null };

export const TENANT = sql.placeholder('tenantId');
export const MEMBERSHIP = sql.placeholder('membershipId');

/** The membership the URL names, within its tenant (the scope rule). */
export const thisMembership = and(
  eq(tenantMemberships.tenantId, TENANT),
  eq(tenantMemberships.id, MEMBERSHIP),
);

const owner = alias(tenantMemberships, 'owner');

/**
 * The last-owner rule is about ACTIVE OWNERs only: a suspended OWNER administers nothing, so it
 * does not count, and nobody else's change counts them.
 */
const activeOwners = sql<number | null>`case when ${tenantMemberships.role} = 'OWNER' and ${isActive()} then (
  select count(*)::int from ${tenantMemberships} as "owner"
  where ${owner.tenantId} = ${TENANT} and ${owner.role} = 'OWNER' and ${isActive(owner)}) end`;

export function membershipNamed(db: Executor) {
  return db.$with('target').as(
    db
      .select({
        ...membershipColumns,
        email: users.email,
        displayName: users.displayName,
        owners: activeOwners.as('owners'),
      })
      .from(tenantMemberships)
      .innerJoin(users, eq(users.id, tenantMemberships.userId))
      .where(thisMembership),
  );
}

export type Target = ReturnType<typeof membershipNamed>;

export const beforeFields = (target: Target) => ({
  id: target.id,
  tenantId: target.tenantId,
  userId: target.userId,
  role: target.role,
  invitedDisplayName: target.invitedDisplayName,
  version: target.version,
  createdAt: target.createdAt,
  updatedAt: target.updatedAt,
  startsAt: target.startsAt,
  endsAt: target.endsAt,
  suspendedAt: target.suspendedAt,
  suspensionReason: target.suspensionReason,
  status: target.status,
  email: target.email,
  displayName: target.displayName,
  owners: target.owners,
});

type BeforeRow = MembershipRow &
  Pick<MembershipWithUser, 'status'> & {
    email: string | null;
    displayName: string | null;
    owners: number | null;
  };

export const asBefore = ({ email, displayName, ...row }: BeforeRow): Before => ({
  ...row,
  user: { email, displayName },
});
