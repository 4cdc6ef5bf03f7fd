import type { GuardianRelationship, InvitationStatus } from '@tms/contract';
import { and, asc, eq, inArray, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { rowsOf } from '../../db/rows.js';
import { guardianInvitations, guardianLinks, tenantMemberships, users } from '../../db/schema.js';
import type { EmailIdentity } from '../../identity/email-address.js';
import { shownInvitationStatus } from '../../rules/invitation-status.sql.js';

/*
 * The changes of guardian invitations, each run under the lock of the invitation's tenant row (a
 * tenant route's transaction, or the invitee's own: modules/shared/invitee-answer.ts), as every
 * writer of the tenant's guardian links takes it. The partial unique index
 * `guardian_invitations_pending_key` stays the last word on "one pending invitation per student
 * and address".
 */

const g = guardianInvitations;

/** A guardian invitation as the service reads it: its status as shown (EXPIRED past `expiresAt`). */
export type GuardianInvitationView = Omit<typeof g.$inferSelect, 'status'> & { status: InvitationStatus };

/** The status as shown, for a WHERE (the column list's is aliased). */
export const guardianInvitationStatusNow = shownInvitationStatus(g.status, g.expiresAt);

export const guardianInvitationColumns = {
  id: g.id,
  tenantId: g.tenantId,
  studentUserId: g.studentUserId,
  email: g.email,
  emailCanonical: g.emailCanonical,
  relationship: g.relationship,
  status: guardianInvitationStatusNow.as('status'),
  source: g.source,
  expiresAt: g.expiresAt,
  createdByUserId: g.createdByUserId,
  answeredAt: g.answeredAt,
  guardianUserId: g.guardianUserId,
  createdAt: g.createdAt,
  updatedAt: g.updatedAt,
};

/** The scope rule lives in the query: another tenant's invitation is simply not found. */
export const guardianInvitationInTenant = (tenantId: string | Placeholder, id: string | Placeholder) =>
  and(eq(g.tenantId, tenantId), eq(g.id, id));

export async function findGuardianInvitationInTenant(
  db: Executor,
  tenantId: string,
  guardianInvitationId: string,
): Promise<GuardianInvitationView | undefined> {
  const [row] = await db
    .select(guardianInvitationColumns)
    .from(g)
    .where(guardianInvitationInTenant(tenantId, guardianInvitationId));
  return row;
}

/** Which tenant's lock an invitee's answer must take. */
export async function tenantOfGuardianInvitation(db: Executor, id: string): Promise<string | undefined> {
  const [row] = await db.select({ tenantId: g.tenantId }).from(g).where(eq(g.id, id));
  return row?.tenantId;
}

/** What an invitation for the student to the address is decided on. */
export type InviteeFacts = {
  /** The student's own canonical address (null: none); undefined: no STUDENT membership here. */
  studentAddress: string | null | undefined;
  /** Whether whoever holds the address is an ACTIVE guardian of the student here already. */
  linked: boolean;
};

/** The student (a STUDENT membership, any status) and whether the address's holder is linked: one statement. */
export async function inviteeFacts(
  db: Executor,
  tenantId: string,
  studentUserId: string,
  canonical: string,
): Promise<InviteeFacts> {
  const [row] = rowsOf<{ is_student: boolean; student_address: string | null; linked: boolean }>(
    await db.execute(sql`
      select exists (${studentMembership(tenantId, studentUserId)}) as is_student,
        (select ${users.emailCanonical} from ${users} where ${users.id} = ${studentUserId}) as student_address,
        exists (select 1 from ${guardianLinks} join ${users} on ${users.id} = ${guardianLinks.guardianUserId}
          where ${guardianLinks.tenantId} = ${tenantId} and ${guardianLinks.studentUserId} = ${studentUserId}
            and ${guardianLinks.status} = 'ACTIVE' and ${users.emailCanonical} = ${canonical}) as linked`),
  );
  if (!row?.is_student) return { studentAddress: undefined, linked: false };
  return { studentAddress: row.student_address, linked: row.linked };
}

const studentMembership = (tenantId: string, studentUserId: string) =>
  sql`select 1 from ${tenantMemberships} where ${tenantMemberships.tenantId} = ${tenantId}
    and ${tenantMemberships.userId} = ${studentUserId} and ${tenantMemberships.role} = 'STUDENT'`;

/** EXPIRED written on the student's and address's lapsed invitation: it frees the pending slot. */
export async function expireLapsedGuardianInvitation(
  db: Executor,
  tenantId: string,
  studentUserId: string,
  canonical: string,
): Promise<void> {
  await db
    .update(g)
    .set({ status: 'EXPIRED', updatedAt: sql`now()` })
    .where(
      and(
        eq(g.tenantId, tenantId),
        eq(g.studentUserId, studentUserId),
        eq(g.emailCanonical, canonical),
        eq(g.status, 'PENDING'),
        sql`${g.expiresAt} <= now()`,
      ),
    );
}

/** A new PENDING invitation; undefined when the student and address have one already (the unique index). */
export async function insertGuardianInvitation(
  db: Executor,
  invitation: {
    tenantId: string;
    studentUserId: string;
    email: EmailIdentity;
    relationship: GuardianRelationship;
    days: number;
    createdByUserId: string;
  },
): Promise<GuardianInvitationView | undefined> {
  const [row] = await db
    .insert(g)
    .values({
      id: uuidv7(),
      tenantId: invitation.tenantId,
      studentUserId: invitation.studentUserId,
      email: invitation.email.address,
      emailCanonical: invitation.email.canonical,
      relationship: invitation.relationship,
      source: 'API',
      expiresAt: sql`now() + make_interval(days => ${invitation.days}::int)`,
      createdByUserId: invitation.createdByUserId,
    })
    .onConflictDoNothing({
      target: [g.tenantId, g.studentUserId, g.emailCanonical],
      where: sql`"status" = 'PENDING'`,
    })
    .returning(guardianInvitationColumns);
  return row;
}

export type GuardianInvitationAnswer =
  | { status: 'REVOKED' | 'DECLINED' }
  | { status: 'ACCEPTED'; guardianUserId: string };

/** Records the answer to an invitation found PENDING under the lock. */
export async function answerGuardianInvitation(
  db: Executor,
  tenantId: string,
  id: string,
  answer: GuardianInvitationAnswer,
): Promise<GuardianInvitationView> {
  const [row] = await db
    .update(g)
    .set({ ...answer, answeredAt: sql`now()`, updatedAt: sql`now()` })
    .where(guardianInvitationInTenant(tenantId, id))
    .returning(guardianInvitationColumns);
  if (!row) throw new Error(`guardian invitation ${id} vanished under its tenant's lock`);
  return row;
}

/**
 * Revokes the PENDING (not expired) invitations matching `which`, answering them as they were and
 * are, in id order: what leaving the tenant and erasure do.
 */
/** An invitation that may still be answered: PENDING and not expired (conditions to spread into an `and`). */
export const OPEN_INVITATION: SQL[] = [eq(g.status, 'PENDING'), sql`${g.expiresAt} > now()`];

export async function revokePendingGuardianInvitations(
  db: Executor,
  which: SQL,
): Promise<{ before: GuardianInvitationView[]; after: GuardianInvitationView[] }> {
  const open = and(which, ...OPEN_INVITATION);
  const before = await db.select(guardianInvitationColumns).from(g).where(open).orderBy(asc(g.id));
  if (before.length === 0) return { before, after: [] };
  const after = await db
    .update(g)
    .set({ status: 'REVOKED', answeredAt: sql`now()`, updatedAt: sql`now()` })
    .where(
      and(
        which,
        inArray(
          g.id,
          before.map((row) => row.id),
        ),
      ),
    )
    .returning(guardianInvitationColumns);
  after.sort((x, y) => x.id.localeCompare(y.id));
  return { before, after };
}

/** The students' pending invitations in the tenant: they left it. */
export const ofStudentsIn = (tenantId: string, studentUserIds: string[]): SQL =>
  and(eq(g.tenantId, tenantId), inArray(g.studentUserId, studentUserIds)) as SQL;
