import { GUARDIAN_INVITATION_DAYS, type GuardianRelationship } from '@tms/contract';
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { rowsOf } from '../../db/rows.js';
import type { EmailIdentity } from '../../identity/email-address.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { AuditEventInput } from '../audit/audit-events.repository.js';
import { toGuardianInvitationDto } from '../guardians/guardian-invitations.dto.js';
import type { GuardianInvitationView } from '../guardians/guardian-invitations.repository.js';

/*
 * A roster's guardian columns (issue 29): each student row may name a guardian to invite by email,
 * as POST …/students/:userId/guardian-invitations would, made PENDING in the import's transaction
 * (source ROSTER). A student and address that already have a pending invitation, or whose
 * address's holder is already the student's ACTIVE guardian, are passed over: applying a file
 * twice invites nobody twice. Set-based, as the rest of the import: the rows travel as one jsonb
 * parameter, and each step is one statement whatever the file's size.
 */

/** A guardian a valid student row asks for; `studentUserId` null: the row adds the student. */
export type PlannedGuardian = {
  row: number;
  studentUserId: string | null;
  email: EmailIdentity;
  relationship: GuardianRelationship;
};

export type GuardianFacts = { row: number; pending: boolean; linked: boolean; self: boolean };

/**
 * For rows whose student is a member already: whether the student and address have a pending
 * invitation, whether the address's holder is their ACTIVE guardian, and whether the address is
 * the student's own (a row naming the student by `userId` alone). A student the row adds has none.
 */
export async function readGuardianFacts(
  tx: Executor,
  tenantId: string,
  guardians: readonly PlannedGuardian[],
): Promise<Map<number, GuardianFacts>> {
  const staged = guardians.flatMap((g) =>
    g.studentUserId === null ? [] : [{ row: g.row, student: g.studentUserId, canonical: g.email.canonical }],
  );
  if (staged.length === 0) return new Map();
  const facts = rowsOf<GuardianFacts>(
    await tx.execute(sql`
      select r."row",
        exists (select 1 from guardian_invitations gi
          where gi.tenant_id = ${tenantId}::uuid and gi.student_user_id = r.student
            and gi.email_canonical = r.canonical and gi.status = 'PENDING' and gi.expires_at > now()) as pending,
        exists (select 1 from guardian_links l join users holder on holder.id = l.guardian_user_id
          where l.tenant_id = ${tenantId}::uuid and l.student_user_id = r.student and l.status = 'ACTIVE'
            and holder.email_canonical = r.canonical) as linked,
        coalesce((select s.email_canonical = r.canonical from users s where s.id = r.student), false) as self
      from jsonb_to_recordset(${JSON.stringify(staged)}::jsonb) as r("row" int, student uuid, canonical text)`),
  );
  return new Map(facts.map((f) => [Number(f.row), { ...f, row: Number(f.row) }]));
}

type Raw = Record<string, unknown>;
const dateOf = (value: unknown) => (value === null ? null : new Date(value as string | Date));

/**
 * The planned invitations, for students whose user ids are known by now (the import's new members
 * added first). A lapsed PENDING invitation of the same student and address is written EXPIRED
 * first, so that it no longer holds the pending slot; the insert then passes over a pending one
 * or an ACTIVE guardian that appeared meanwhile (none can, under the tenant's lock).
 */
export async function insertRosterGuardianInvitations(
  tx: Executor,
  tenantId: string,
  audit: AuditContext,
  guardians: readonly (PlannedGuardian & { studentUserId: string })[],
): Promise<{ row: number; event: AuditEventInput }[]> {
  if (guardians.length === 0) return [];
  const staged = guardians.map((g) => ({
    row: g.row,
    id: uuidv7(),
    student: g.studentUserId,
    address: g.email.address,
    canonical: g.email.canonical,
    relationship: g.relationship,
  }));
  const rows = sql`jsonb_to_recordset(${JSON.stringify(staged)}::jsonb) as r("row" int, id uuid, student uuid,
    address text, canonical text, relationship guardian_relationship)`;
  await tx.execute(sql`
    update guardian_invitations gi set status = 'EXPIRED', updated_at = now()
    from ${rows}
    where gi.tenant_id = ${tenantId}::uuid and gi.student_user_id = r.student and gi.email_canonical = r.canonical
      and gi.status = 'PENDING' and gi.expires_at <= now()`);
  const inserted = rowsOf<Raw>(
    await tx.execute(sql`
      insert into guardian_invitations (id, tenant_id, student_user_id, email, email_canonical, relationship,
        status, source, expires_at, created_by_user_id, answered_at, guardian_user_id, created_at, updated_at)
      select r.id, ${tenantId}::uuid, r.student, r.address, r.canonical, r.relationship, 'PENDING', 'ROSTER',
        now() + make_interval(days => ${GUARDIAN_INVITATION_DAYS}::int), ${audit.actor.userId}::uuid, null, null,
        now(), now()
      from ${rows}
      where not exists (select 1 from guardian_links l join users holder on holder.id = l.guardian_user_id
        where l.tenant_id = ${tenantId}::uuid and l.student_user_id = r.student and l.status = 'ACTIVE'
          and holder.email_canonical = r.canonical)
      on conflict (tenant_id, student_user_id, email_canonical) where status = 'PENDING' do nothing
      returning id, tenant_id, student_user_id, email, email_canonical, relationship, status, source,
        expires_at, created_by_user_id, answered_at, guardian_user_id, created_at, updated_at`),
  );
  const rowOf = new Map(staged.map((s) => [s.id, s.row]));
  return inserted.map((raw) => {
    const view: GuardianInvitationView = {
      id: raw.id as string,
      tenantId: raw.tenant_id as string,
      studentUserId: raw.student_user_id as string,
      email: raw.email as string,
      emailCanonical: raw.email_canonical as string,
      relationship: raw.relationship as GuardianRelationship,
      status: 'PENDING',
      source: 'ROSTER',
      expiresAt: dateOf(raw.expires_at) as Date,
      createdByUserId: raw.created_by_user_id as string | null,
      answeredAt: null,
      guardianUserId: null,
      createdAt: dateOf(raw.created_at) as Date,
      updatedAt: dateOf(raw.updated_at) as Date,
    };
    const event: AuditEventInput = {
      tenantId,
      action: 'guardian_invitation.created',
      target: { type: 'guardian_invitation', id: view.id },
      before: null,
      after: toGuardianInvitationDto(view),
      context: audit,
    };
    return { row: rowOf.get(view.id) as number, event };
  });
}
