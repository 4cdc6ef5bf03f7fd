import type { AuditAction, Role } from '@tms/contract';
import { type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { rowsOf } from '../../db/rows.js';
import { statusOf } from '../../rules/membership-status.sql.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { AuditEventInput } from '../audit/audit-events.repository.js';
import { recordAuditEvents } from '../audit/audit-events-batch.repository.js';
import { studentsLeft } from '../guardians/guardian-links.service.js';
import { patchActionOf } from '../memberships/membership-events.js';
import { toMembershipDto } from '../memberships/memberships.dto.js';
import type { MembershipWithUser } from '../memberships/memberships.repository.js';
import { insertRosterGuardianInvitations } from './roster-guardians.js';
import type { PlannedCreate, PlannedUpdate, RosterPlan } from './roster-plan.js';

/*
 * Making a roster plan's changes: a constant number of statements whatever the file's size (the
 * invited users, the new memberships, the changed ones, the removed ones, then every audit event
 * in one), each staging its rows as one jsonb parameter and reading back, with the user, what the
 * events show. Each change is the one a single request would make: a new membership as "add by
 * email" makes it, a change bumps `version` and `updated_at` as a PATCH does, and an update that
 * would change nothing is not made (applying a file twice changes nothing the second time).
 */

const COLUMNS = [
  'id',
  'tenant_id',
  'user_id',
  'role',
  'invited_display_name',
  'version',
  'created_at',
  'updated_at',
  'starts_at',
  'ends_at',
  'suspended_at',
  'suspension_reason',
  'managed_by',
  'external_id',
] as const;

/** A membership's columns (and status, as of the transaction) under `alias`, each named `prefix` + column. */
function membershipOf(alias: string, prefix: string): SQL {
  const a = (column: string) => sql.raw(`${alias}.${column}`);
  const columns = COLUMNS.map((column) => sql`${a(column)} as ${sql.raw(prefix + column)}`);
  const status = statusOf({ suspendedAt: a('suspended_at'), startsAt: a('starts_at'), endsAt: a('ends_at') });
  return sql.join([...columns, sql`${status} as ${sql.raw(`${prefix}status`)}`], sql`, `);
}

type Raw = Record<string, unknown>;
const dateOf = (value: unknown) => (value === null ? null : new Date(value as string | Date));

/** The membership read by membershipOf, with its user as `email` and `display_name` name them. */
function asMembership(raw: Raw, prefix: string): MembershipWithUser {
  const at = (column: string) => raw[prefix + column];
  return {
    id: at('id') as string,
    tenantId: at('tenant_id') as string,
    userId: at('user_id') as string,
    role: at('role') as Role,
    invitedDisplayName: at('invited_display_name') as string | null,
    version: Number(at('version')),
    createdAt: dateOf(at('created_at')) as Date,
    updatedAt: dateOf(at('updated_at')) as Date,
    startsAt: dateOf(at('starts_at')),
    endsAt: dateOf(at('ends_at')),
    suspendedAt: dateOf(at('suspended_at')),
    suspensionReason: at('suspension_reason') as string | null,
    managedBy: at('managed_by') as string | null,
    externalId: at('external_id') as string | null,
    status: at('status') as MembershipWithUser['status'],
    user: { email: raw.email as string | null, displayName: raw.display_name as string | null },
  };
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * The new memberships, in two statements as "add by email" makes one: the addresses nobody holds
 * become invited users (`on conflict do nothing`: a sign-in or another request may insert one
 * meanwhile, and this insert then waits for it and leaves it be), then every address's holder is
 * found again, by a statement that sees what committed meanwhile, and added. Whoever commits
 * first, the membership is the holder's. Users are inserted in address order, so two imports
 * inviting the same people wait for each other instead of deadlocking.
 */
async function insertCreates(tx: Executor, tenantId: string, creates: readonly PlannedCreate[]) {
  if (creates.length === 0) return new Map<number, MembershipWithUser>();
  const staged = creates.map((c) => ({
    row: c.row,
    id: uuidv7(),
    new_user_id: uuidv7(),
    address: c.email.address,
    canonical: c.email.canonical,
    role: c.role,
    starts_at: iso(c.startsAt),
    ends_at: iso(c.endsAt),
    invited_display_name: c.invitedDisplayName,
  }));
  const json = JSON.stringify(staged);
  const rows = sql`jsonb_to_recordset(${json}::jsonb) as r("row" int, id uuid, new_user_id uuid, address text,
    canonical text, role membership_role, starts_at timestamptz, ends_at timestamptz, invited_display_name text)`;
  await tx.execute(sql`
    insert into users (id, subject, email, email_canonical, display_name, is_super_admin, created_at,
      updated_at, erased_at)
    select r.new_user_id, null, r.address, r.canonical, null, false, now(), now(), null
    from ${rows}
    where not exists (select 1 from users holder where holder.email_canonical = r.canonical)
    order by r.canonical
    on conflict (email_canonical) do nothing`);
  const added = rowsOf<Raw>(
    await tx.execute(sql`
      with added as (
        insert into tenant_memberships (id, tenant_id, user_id, role, invited_display_name, version,
          search, created_at, updated_at, starts_at, ends_at, suspended_at, suspension_reason)
        -- search: filled by the table's trigger, from the user.
        select r.id, ${tenantId}::uuid, holder.id, r.role, r.invited_display_name, 1, '', now(), now(),
          r.starts_at, r.ends_at, null, null
        from ${rows}
        join users holder on holder.email_canonical = r.canonical and holder.erased_at is null
        on conflict (tenant_id, user_id) do nothing
        returning *
      )
      select ${membershipOf('added', 'm_')}, u.email, u.display_name
      from added join users u on u.id = added.user_id`),
  );
  if (added.length !== creates.length)
    throw new Error(
      `a roster import added ${added.length} of ${creates.length} memberships: an address changed hands`,
    );
  const rowOf = new Map(staged.map((s) => [s.id, s.row]));
  return new Map(added.map((raw) => [rowOf.get(raw.m_id as string) as number, asMembership(raw, 'm_')]));
}

/**
 * The changed memberships, as a PATCH changes one. `was` is the same table read beside the update:
 * a FROM item sees the rows as the statement found them, so it returns each membership as it was.
 */
async function updateChanged(tx: Executor, tenantId: string, updates: readonly PlannedUpdate[]) {
  if (updates.length === 0)
    return new Map<number, { before: MembershipWithUser; after: MembershipWithUser }>();
  const staged = JSON.stringify(
    updates.map((u) => ({
      row: u.row,
      id: u.membershipId,
      role: u.role,
      starts_at: iso(u.startsAt),
      ends_at: iso(u.endsAt),
    })),
  );
  const changed = rowsOf<Raw>(
    await tx.execute(sql`
      with changed as (
        update tenant_memberships m
        set role = r.role, starts_at = r.starts_at, ends_at = r.ends_at, version = m.version + 1,
          updated_at = now()
        from jsonb_to_recordset(${staged}::jsonb)
            as r("row" int, id uuid, role membership_role, starts_at timestamptz, ends_at timestamptz),
          tenant_memberships was
        where m.tenant_id = ${tenantId}::uuid and m.id = r.id and was.tenant_id = m.tenant_id and was.id = m.id
          and (m.role <> r.role or m.starts_at is distinct from r.starts_at or m.ends_at is distinct from r.ends_at)
        returning r."row", ${membershipOf('was', 'b_')}, ${membershipOf('m', 'a_')}
      )
      select changed.*, u.email, u.display_name from changed join users u on u.id = changed.a_user_id`),
  );
  return new Map(
    changed.map((raw) => [
      Number(raw.row),
      { before: asMembership(raw, 'b_'), after: asMembership(raw, 'a_') },
    ]),
  );
}

/** The removed memberships, as they were. */
async function deleteRemoved(tx: Executor, tenantId: string, membershipIds: readonly string[]) {
  if (membershipIds.length === 0) return [];
  const removed = rowsOf<Raw>(
    await tx.execute(sql`
      with removed as (
        delete from tenant_memberships m
        using jsonb_array_elements_text(${JSON.stringify(membershipIds)}::jsonb) as r(id)
        where m.tenant_id = ${tenantId}::uuid and m.id = r.id::uuid
        returning ${membershipOf('m', 'm_')}
      )
      select removed.*, u.email, u.display_name from removed join users u on u.id = removed.m_user_id
      order by removed.m_id`),
  );
  return removed.map((raw) => asMembership(raw, 'm_'));
}

const eventOf = (
  context: AuditContext,
  action: AuditAction,
  before: MembershipWithUser | null,
  after: MembershipWithUser | null,
): AuditEventInput => {
  const membership = (after ?? before) as MembershipWithUser;
  return {
    tenantId: membership.tenantId,
    action,
    target: { type: 'membership', id: membership.id },
    before: before && toMembershipDto(before),
    after: after && toMembershipDto(after),
    context,
  };
};

function studentOf(created: ReadonlyMap<number, MembershipWithUser>, row: number): string {
  const membership = created.get(row);
  if (!membership) throw new Error(`roster row ${row} planned a guardian for a member it did not add`);
  return membership.userId;
}

/**
 * Applies a plan that has no errors and whose removal limit is not exceeded, in the caller's
 * transaction (the one planRoster read in, under the tenant's lock). Events as single changes
 * write them, numbered in the order of the rows, then the removals in creation order.
 */
export async function applyRosterPlan(tx: Executor, plan: RosterPlan, audit: AuditContext): Promise<void> {
  if (plan.errors.length > 0 || plan.removalLimit.exceeded)
    throw new Error('a roster plan with errors, or past its removal limit, cannot be applied');
  const { tenantId, creates, updates, removals, guardians } = plan.changes;
  const created = await insertCreates(tx, tenantId, creates);
  const updated = await updateChanged(tx, tenantId, updates);
  const removed = await deleteRemoved(
    tx,
    tenantId,
    removals.map((m) => m.membershipId),
  );
  // The students this import added have their user ids by now.
  const invited = await insertRosterGuardianInvitations(
    tx,
    tenantId,
    audit,
    guardians.map((g) => ({ ...g, studentUserId: g.studentUserId ?? studentOf(created, g.row) })),
  );
  const byRow: [number, AuditEventInput][] = [];
  for (const [row, after] of created) byRow.push([row, eventOf(audit, 'membership.created', null, after)]);
  for (const [row, { before, after }] of updated)
    byRow.push([row, eventOf(audit, patchActionOf(before, after), before, after)]);
  // A row's guardian invitation after its membership's event.
  for (const { row, event } of invited) byRow.push([row + 0.5, event]);
  byRow.sort(([a], [b]) => a - b);
  await recordAuditEvents(tx, [
    ...byRow.map(([, event]) => event),
    ...removed.map((before) => eventOf(audit, 'membership.removed', before, null)),
  ]);
  await studentsLeft(tx, audit, tenantId, removed);
}
