import type { Role } from '@tms/contract';
import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships } from '../../db/schema.js';
import { statusOf } from '../../rules/membership-status.sql.js';
import { thisMembership } from './membership-target.sql.js';
import { type MembershipWithUser, membershipColumns } from './memberships.repository.js';

/*
 * Changes of one membership that keep it: its role and term dates (PATCH), its suspension. Each is
 * one statement that writes what the service decided (rules/membership-rules.ts), on what it read
 * under the tenant's lock (membership-target.sql.ts: findForChange): the values are the service's,
 * not recomputed here. Each makes a new version.
 */

export type Changed = Omit<MembershipWithUser, 'user'>;

type Set = Partial<Record<'role' | 'startsAt' | 'endsAt' | 'suspendedAt' | 'suspensionReason', SQL>>;

function changing(db: Executor, name: string, set: Set) {
  return db
    .update(tenantMemberships)
    .set({ ...set, version: sql`${tenantMemberships.version} + 1`, updatedAt: sql`now()` })
    .where(thisMembership)
    .returning({ ...membershipColumns, status: statusOf().as('status') })
    .prepare(name);
}

const at = (name: string) => sql`${sql.placeholder(name)}::timestamptz`;
const iso = (date: Date | null) => date?.toISOString() ?? null;

const updateTerm = preparedPer((db) =>
  changing(db, 'update_membership', {
    role: sql`${sql.placeholder('role')}::membership_role`,
    startsAt: at('startsAt'),
    endsAt: at('endsAt'),
  }),
);

export type TermChange = { role: Role; startsAt: Date | null; endsAt: Date | null };

/** Gives the membership this role and these dates. */
export async function setTerm(
  db: Executor,
  tenantId: string,
  membershipId: string,
  term: TermChange,
): Promise<Changed | undefined> {
  const [row] = await updateTerm(db).execute({
    tenantId,
    membershipId,
    role: term.role,
    startsAt: iso(term.startsAt),
    endsAt: iso(term.endsAt),
  });
  return row;
}

const suspendOne = preparedPer((db) =>
  changing(db, 'suspend_membership', {
    suspendedAt: sql`now()`,
    suspensionReason: sql`${sql.placeholder('reason')}::text`,
  }),
);

/** Suspends the membership, with the reason given. */
export async function suspend(
  db: Executor,
  tenantId: string,
  membershipId: string,
  reason: string | null,
): Promise<Changed | undefined> {
  const [row] = await suspendOne(db).execute({ tenantId, membershipId, reason });
  return row;
}

const reactivateOne = preparedPer((db) =>
  changing(db, 'reactivate_membership', {
    suspendedAt: sql`null`,
    suspensionReason: sql`null`,
    startsAt: at('startsAt'),
    endsAt: at('endsAt'),
  }),
);

/** Lifts the suspension and gives the membership the dates of its reactivation (rules: reactivatedTerm). */
export async function reactivate(
  db: Executor,
  tenantId: string,
  membershipId: string,
  term: { startsAt: Date | null; endsAt: Date | null },
): Promise<Changed | undefined> {
  const [row] = await reactivateOne(db).execute({
    tenantId,
    membershipId,
    startsAt: iso(term.startsAt),
    endsAt: iso(term.endsAt),
  });
  return row;
}
