import type { Role } from '@tms/contract';
import { and, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships } from '../../db/schema.js';
import { isActive, statusOf } from './membership-status.sql.js';
import {
  asBefore,
  type Before,
  beforeFields,
  membershipNamed,
  thisMembership,
} from './membership-target.sql.js';
import { type MembershipWithUser, membershipColumns } from './memberships.repository.js';

/*
 * Changes of one membership that keep it: its role and term dates (PATCH), its suspension. Each is
 * one statement that reads the membership as it was (membership-target.sql.ts) and changes it only
 * when the change changes something, so that a no-op keeps its version. The service checks the
 * rules on what was read; a refusal rolls the change back with the request's transaction.
 */

/** What the statement read and, when it changed something, the membership after the change. */
export type Changed = { before: Before; after: MembershipWithUser | null };

type Set = Partial<Record<'role' | 'startsAt' | 'endsAt' | 'suspendedAt' | 'suspensionReason', SQL>>;

/**
 * One change of the named membership: `set` applied where `changes` holds (the new values differ
 * from the old, and nothing the table refuses), reading the membership before and after it.
 * `extra` are values computed on the membership as it was, read beside it.
 */
function changing<E extends Record<string, SQL.Aliased>>(
  db: Executor,
  name: string,
  set: Set,
  changes: SQL,
  extra: E = {} as E,
) {
  const target = membershipNamed(db);
  const changed = db.$with('changed').as(
    db
      .update(tenantMemberships)
      .set({ ...set, version: sql`${tenantMemberships.version} + 1`, updatedAt: sql`now()` })
      .where(and(thisMembership, changes))
      // Named apart from the target's status: the outer select names a CTE's computed column bare.
      .returning({ ...membershipColumns, status: statusOf().as('new_status') }),
  );
  const after = {
    id: changed.id,
    tenantId: changed.tenantId,
    userId: changed.userId,
    role: changed.role,
    invitedDisplayName: changed.invitedDisplayName,
    version: changed.version,
    createdAt: changed.createdAt,
    updatedAt: changed.updatedAt,
    startsAt: changed.startsAt,
    endsAt: changed.endsAt,
    suspendedAt: changed.suspendedAt,
    suspensionReason: changed.suspensionReason,
    status: changed.status,
  };
  return db
    .with(target, changed)
    .select({ before: beforeFields(target), after, ...extra })
    .from(target)
    .leftJoin(changed, sql`true`)
    .prepare(name);
}

type Row = {
  before: Parameters<typeof asBefore>[0];
  after: Omit<MembershipWithUser, 'user'> | null;
};

const changedOf = ({ before, after }: Row): Changed => {
  const was = asBefore(before);
  return { before: was, after: after && { ...after, user: was.user } };
};

/** A date the request sets, or the column as it is: `set` says whether the request sent one. */
const dateOrKept = (column: SQLWrapper, key: 'starts' | 'ends') =>
  sql`(case when ${sql.placeholder(`set_${key}`)}::boolean then ${sql.placeholder(`${key}_at`)}::timestamptz else ${column} end)`;
const NEW_ROLE = sql`coalesce(${sql.placeholder('role')}::membership_role, ${tenantMemberships.role})`;
const NEW_STARTS = dateOrKept(tenantMemberships.startsAt, 'starts');
const NEW_ENDS = dateOrKept(tenantMemberships.endsAt, 'ends');
/** The table's own check (tenant_memberships_term_order), asked first: a refused row is left as it was. */
const TERM_IN_ORDER = sql<boolean>`(${NEW_STARTS} is null or ${NEW_ENDS} is null or ${NEW_STARTS} < ${NEW_ENDS})`;

const updateTerms = preparedPer((db) =>
  changing(
    db,
    'update_membership',
    { role: NEW_ROLE, startsAt: NEW_STARTS, endsAt: NEW_ENDS },
    and(
      sql`(${NEW_ROLE} <> ${tenantMemberships.role} or ${NEW_STARTS} is distinct from ${tenantMemberships.startsAt}
        or ${NEW_ENDS} is distinct from ${tenantMemberships.endsAt})`,
      TERM_IN_ORDER,
    ) as SQL,
    // Read in the target's scope: its columns are the membership as it was.
    {
      termInOrder:
        sql<boolean>`(select ${TERM_IN_ORDER} from ${tenantMemberships} where ${thisMembership})`.as(
          'term_in_order',
        ),
    },
  ),
);

export type TermChange = { role?: Role; startsAt?: Date | null; endsAt?: Date | null };

/**
 * Gives the membership the role and dates sent (a date not sent keeps its value); undefined when
 * there is no such membership. `termInOrder` false: the dates would end before they start, and
 * nothing changed.
 */
export async function updateReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
  change: TermChange,
): Promise<(Changed & { termInOrder: boolean }) | undefined> {
  const [row] = await updateTerms(db).execute({
    tenantId,
    membershipId,
    role: change.role ?? null,
    set_starts: change.startsAt !== undefined,
    starts_at: change.startsAt?.toISOString() ?? null,
    set_ends: change.endsAt !== undefined,
    ends_at: change.endsAt?.toISOString() ?? null,
  });
  return row && { ...changedOf(row), termInOrder: row.termInOrder };
}

const suspendOne = preparedPer((db) =>
  changing(
    db,
    'suspend_membership',
    { suspendedAt: sql`now()`, suspensionReason: sql`${sql.placeholder('reason')}::text` },
    // Suspended already: the first suspension, and its reason, stand.
    sql`${tenantMemberships.suspendedAt} is null`,
  ),
);

/** Suspends the membership (unless it is already); undefined when there is no such membership. */
export async function suspendReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
  reason: string | null,
): Promise<Changed | undefined> {
  const [row] = await suspendOne(db).execute({ tenantId, membershipId, reason });
  return row && changedOf(row);
}

const reactivateOne = preparedPer((db) =>
  changing(
    db,
    'reactivate_membership',
    {
      suspendedAt: sql`null`,
      suspensionReason: sql`null`,
      // What keeps it from being ACTIVE now goes; dates that do not stay.
      startsAt: sql`(case when ${tenantMemberships.startsAt} > now() then null else ${tenantMemberships.startsAt} end)`,
      endsAt: sql`(case when ${tenantMemberships.endsAt} <= now() then null else ${tenantMemberships.endsAt} end)`,
    },
    sql`not ${isActive()}`,
  ),
);

/** Makes the membership ACTIVE now (unless it is already); undefined when there is no such membership. */
export async function reactivateReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<Changed | undefined> {
  const [row] = await reactivateOne(db).execute({ tenantId, membershipId });
  return row && changedOf(row);
}
