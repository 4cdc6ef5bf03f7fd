import type { MembershipStatus, Role } from '@tms/contract';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { rowsOf } from '../../db/rows.js';
import { isActive, statusOf } from '../../rules/membership-status.sql.js';

/*
 * What a roster file would change, read in SQL: whom each row names and that person's membership
 * here, and (a sync) the members no row names. Reads only; the rules are in roster-plan.ts. The
 * caller holds the tenant's lock, so the memberships read here are still so when the plan is
 * applied in the same transaction (users are not under that lock: see roster-apply.repository).
 *
 * The rows travel as one jsonb parameter, whatever the file's size: one parameter per cell would
 * pass postgres.js's 65,535, and a statement per row would be the import's whole time.
 */

/** How a row names someone: an address (canonical form), or else a user id. */
export type RowKey = { row: number; canonical: string | null; userId: string | null };

/** A membership of the tenant as the plan judges it. */
export type PlannedMember = {
  membershipId: string;
  userId: string;
  role: Role;
  startsAt: Date | null;
  endsAt: Date | null;
  suspended: boolean;
  status: MembershipStatus;
  email: string | null;
  /** 'scim': the tenant's directory manages its role and removal (rules/directory-rules.ts). */
  managedBy: string | null;
};

/** Whom a row names. */
export type NamedByRow = {
  row: number;
  /** The user the row names; null: an address nobody holds, or a user id that is nobody. */
  userId: string | null;
  /** The address belongs to an erased user: nobody, yet not free for an invitation either. */
  erasedHolder: boolean;
  /** That user's membership of the tenant, if any. */
  member: PlannedMember | null;
};

export type RosterReading = {
  /** One per row, in the order given. */
  named: NamedByRow[];
  /** A sync: the tenant's members that no row names, in creation order. Empty otherwise. */
  unnamed: PlannedMember[];
  /** The tenant's memberships (any status) and ACTIVE OWNERs before the import. */
  members: number;
  activeOwners: number;
};

/** The membership alias `m` of the statements below, for the one definition of status. */
const M = {
  suspendedAt: sql.raw('m.suspended_at'),
  startsAt: sql.raw('m.starts_at'),
  endsAt: sql.raw('m.ends_at'),
};

const MEMBER_COLUMNS = sql`m.id as membership_id, m.user_id as member_user_id, m.role,
  m.starts_at, m.ends_at, m.suspended_at is not null as suspended, ${statusOf(M)} as status, u.email,
  m.managed_by`;

/**
 * An uuid-looking user id, or null: the reader checks the column, and a cast that fails would be
 * a 500 where the row deserves UNKNOWN_MEMBER.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Each row's person: the holder of its address (erased or not: an erased holder is reported, not
 * matched), or, with no address, the user it names by id (an erased user is no one). A sync joins
 * the tenant's members FULL: the members no row names come out of the same statement, and a full
 * join is always a hash or merge join, so a large file against a large tenant stays linear.
 */
function namedStatement(tenantId: string, keys: readonly RowKey[], sync: boolean) {
  const staged = JSON.stringify(
    keys.map(({ row, canonical, userId }) => ({
      row,
      canonical,
      user_id: canonical === null && userId !== null && UUID.test(userId) ? userId : null,
    })),
  );
  const members = sql`(select ${MEMBER_COLUMNS} from tenant_memberships m
    join users u on u.id = m.user_id where m.tenant_id = ${tenantId}::uuid)`;
  return sql`
    with named as materialized (
      select r."row", (holder.erased_at is not null) as erased_holder,
        coalesce(case when holder.erased_at is null then holder.id end, by_id.id) as user_id
      from jsonb_to_recordset(${staged}::jsonb) as r("row" int, canonical text, user_id uuid)
      left join users holder on holder.email_canonical = r.canonical
      left join users by_id on r.canonical is null and by_id.id = r.user_id and by_id.erased_at is null
    )
    select named."row", named.user_id, coalesce(named.erased_holder, false) as erased_holder, member.*
    from named ${sync ? sql`full join` : sql`left join`} ${members} as member
      on member.member_user_id = named.user_id`;
}

type RawMember = {
  membership_id: string | null;
  member_user_id: string;
  role: Role;
  starts_at: string | Date | null;
  ends_at: string | Date | null;
  suspended: boolean;
  status: MembershipStatus;
  email: string | null;
  managed_by: string | null;
};
type RawNamed = RawMember & { row: number | null; user_id: string | null; erased_holder: boolean };

const dateOf = (value: string | Date | null): Date | null => (value === null ? null : new Date(value));

const memberOf = (raw: RawMember): PlannedMember | null =>
  raw.membership_id === null
    ? null
    : {
        membershipId: raw.membership_id,
        userId: raw.member_user_id,
        role: raw.role,
        startsAt: dateOf(raw.starts_at),
        endsAt: dateOf(raw.ends_at),
        suspended: raw.suspended,
        status: raw.status,
        email: raw.email,
        managedBy: raw.managed_by,
      };

/** Reads what the plan is made on: two statements, whatever the file's and the tenant's size. */
export async function readRoster(
  tx: Executor,
  tenantId: string,
  keys: readonly RowKey[],
  sync: boolean,
): Promise<RosterReading> {
  const raw = rowsOf<RawNamed>(await tx.execute(namedStatement(tenantId, keys, sync)));
  const byRow = new Map<number, NamedByRow>();
  const unnamed: PlannedMember[] = [];
  for (const r of raw) {
    const member = memberOf(r);
    if (r.row === null) {
      if (member) unnamed.push(member);
      continue;
    }
    byRow.set(r.row, { row: r.row, userId: r.user_id, erasedHolder: r.erased_holder, member });
  }
  const named = keys.map(
    ({ row }) => byRow.get(row) ?? { row, userId: null, erasedHolder: false, member: null },
  );
  unnamed.sort((a, b) => (a.membershipId < b.membershipId ? -1 : 1));
  // Two counts, each on its own index: every membership, then the OWNERs (the role's index).
  const [counts] = rowsOf<{ members: number; active_owners: number }>(
    await tx.execute(sql`
      select (select count(*) from tenant_memberships m where m.tenant_id = ${tenantId}::uuid)::int as members,
        (select count(*) from tenant_memberships m
          where m.tenant_id = ${tenantId}::uuid and m.role = 'OWNER' and ${isActive(M)})::int as active_owners`),
  );
  return { named, unnamed, members: counts?.members ?? 0, activeOwners: counts?.active_owners ?? 0 };
}
