import { ROLE_LEVEL, type Role } from '@tms/contract';
import { sql } from 'drizzle-orm';
import { lockTenantForWrite } from '../../src/access/access.repository.js';
import { SUPER_ADMIN_LEVEL, type TenantAccess } from '../../src/access/decide-access.js';
import type { Database } from '../../src/db/database.js';
import { rowsOf } from '../../src/db/rows.js';
import { emailIdentity } from '../../src/identity/email-address.js';
import type { AuditContext } from '../../src/modules/audit/audit-context.js';
import { applyRosterPlan } from '../../src/modules/rosters/roster-apply.repository.js';
import { planRoster, type RosterPlan, type RosterPlanInput } from '../../src/modules/rosters/roster-plan.js';
import type { RosterRow } from '../../src/modules/rosters/roster-rows.js';
import type { Actor } from '../support/factories.js';

/** What the reader would hand over for one row; `email` as written in the file. */
export function rosterRow(
  row: number,
  fields: Partial<Omit<RosterRow, 'row' | 'email'>> & { email?: string | null } = {},
): RosterRow {
  const { email, ...rest } = fields;
  const identity = email ? emailIdentity(email) : null;
  if (email && !identity) throw new Error(`not an address: ${email}`);
  return {
    row,
    email: identity ?? null,
    userId: null,
    guardian: null,
    role: undefined,
    displayName: null,
    startsAt: undefined,
    endsAt: undefined,
    ...rest,
  };
}

/** Rows 2, 3, … (the header is row 1), one per address. */
export const rowsFor = (emails: readonly string[], fields: Partial<Omit<RosterRow, 'row' | 'email'>> = {}) =>
  emails.map((email, n) => rosterRow(n + 2, { email, ...fields }));

export const accessAs = (tenantId: string, role: Role | 'SUPER_ADMIN'): TenantAccess =>
  role === 'SUPER_ADMIN'
    ? { tenantId, level: SUPER_ADMIN_LEVEL, isSuperAdmin: true }
    : { tenantId, level: ROLE_LEVEL[role], isSuperAdmin: false };

export const auditOf = (actor: Actor, requestId = 'roster-test'): AuditContext => ({
  actor: { userId: actor.userId, subject: actor.subject, isSuperAdmin: false },
  requestId,
});

export type ImportRun = { caller: Actor; role?: Role | 'SUPER_ADMIN' } & Partial<
  Pick<RosterPlanInput, 'mode' | 'maxRemovalPercent'>
>;

/**
 * What the route will do: one transaction, the tenant's lock, plan, then apply when the plan may
 * be applied (unless `dryRun`). Answers the plan.
 */
export async function runImport(
  db: Database,
  tenantId: string,
  rows: RosterRow[],
  run: ImportRun & { dryRun?: boolean },
): Promise<RosterPlan> {
  return db.transaction(async (tx) => {
    await lockTenantForWrite(tx, tenantId, run.caller.subject);
    const plan = await planRoster(tx, {
      tenantId,
      access: accessAs(tenantId, run.role ?? 'OWNER'),
      callerUserId: run.caller.userId,
      rows,
      mode: run.mode ?? 'add',
      maxRemovalPercent: run.maxRemovalPercent ?? 100,
    });
    const applicable = plan.errors.length === 0 && !plan.removalLimit.exceeded;
    if (!run.dryRun && applicable) await applyRosterPlan(tx, plan, auditOf(run.caller));
    return plan;
  });
}

export type StoredMember = {
  id: string;
  user_id: string;
  email: string | null;
  subject: string | null;
  role: Role;
  version: number;
  invited_display_name: string | null;
  starts_at: string | null;
  ends_at: string | null;
  suspended_at: string | null;
  search: string;
};

/** The tenant's memberships as stored, by lower-cased address. */
export async function storedMembers(db: Database, tenantId: string): Promise<Map<string, StoredMember>> {
  const rows = rowsOf<StoredMember>(
    await db.execute(sql`
      select m.id, m.user_id, u.email, u.subject, m.role, m.version, m.invited_display_name,
        to_char(m.starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as starts_at,
        to_char(m.ends_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ends_at,
        m.suspended_at::text as suspended_at, m.search
      from tenant_memberships m join users u on u.id = m.user_id
      where m.tenant_id = ${tenantId}::uuid order by m.id`),
  );
  return new Map(rows.map((row) => [(row.email ?? row.user_id).toLowerCase(), row]));
}

export type StoredEvent = {
  sequence: number;
  action: string;
  target_id: string;
  before: unknown;
  after: unknown;
};

/** The tenant's audit events as stored, oldest first. */
export async function storedEvents(db: Database, tenantId: string): Promise<StoredEvent[]> {
  const rows = rowsOf<StoredEvent & { before: unknown; after: unknown }>(
    await db.execute(sql`
      select sequence::int as sequence, action, target_id, before::text as before, after::text as after
      from audit_events where tenant_id = ${tenantId}::uuid order by sequence`),
  );
  const parse = (value: unknown) => (value === null ? null : JSON.parse(value as string));
  return rows.map((row) => ({ ...row, before: parse(row.before), after: parse(row.after) }));
}
