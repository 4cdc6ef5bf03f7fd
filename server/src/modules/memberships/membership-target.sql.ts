import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships, users } from '../../db/schema.js';
import { activeOwnersOf, isActiveOwner } from '../../rules/membership-status.sql.js';
import { hasGuardianTies } from '../guardians/guardian-ties.sql.js';
import { type MembershipWithUser, membershipColumns } from './memberships.repository.js';

/*
 * What a change of one membership is decided on, read under the tenant's lock before the change:
 * the membership as it is (with its status), how many ACTIVE OWNERs the tenant has when it is
 * one, and the transaction's time (what its status, after the change, is computed at). The
 * service decides on these with the rules of rules/membership-rules.ts, then changes it, or not.
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

/**
 * The last-owner rule is about ACTIVE OWNERs only: a suspended OWNER administers nothing, so it
 * does not count. Counted only when the membership is one (nobody else's change needs it).
 */
const activeOwners = sql<number | null>`case when ${isActiveOwner()} then ${activeOwnersOf(TENANT)} end`;

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
  managedBy: target.managedBy,
  externalId: target.externalId,
  status: target.status,
  // Nested as the row mapper builds it (db/row-mapper.ts): the row is the Before, without copies.
  user: { email: target.email, displayName: target.displayName },
  owners: target.owners,
});

/**
 * A membership as a change is decided on: with the tenant's ACTIVE OWNERs, the transaction's time,
 * and, for a STUDENT, whether their leaving would revoke anything (guardian-ties.sql.ts).
 */
export type ForChange = Before & { now: Date; guardianTies: boolean };

const forChange = preparedPer((db) => {
  const target = membershipNamed(db);
  return db
    .with(target)
    .select({
      ...beforeFields(target),
      now: sql<Date>`now()`.mapWith((value: string | Date) => new Date(value)).as('now'),
      guardianTies:
        sql<boolean>`(${target.role} = 'STUDENT' and ${hasGuardianTies(target.tenantId, target.userId)})`
          .mapWith(Boolean)
          .as('guardian_ties'),
    })
    .from(target)
    .prepare('membership_for_change');
});

/** The membership as it is, for a change to be decided on; undefined when there is no such membership here. */
export async function findForChange(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<ForChange | undefined> {
  const [row] = await forChange(db).execute({ tenantId, membershipId });
  return row;
}
