import type { InvitationStatus } from '@tms/contract';
import { and, asc, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { guardianInvitations, tenantMemberships, tenants, users } from '../../db/schema.js';
import {
  type GuardianInvitationView,
  guardianInvitationColumns,
  guardianInvitationStatusNow,
} from './guardian-invitations.repository.js';

const g = guardianInvitations;
const student = alias(users, 'student');

export type GuardianInvitationFilters = {
  tenantId: string;
  status?: InvitationStatus;
  studentUserId?: string;
  afterId?: string;
  limit: number;
};

/** A page in creation order; the unfiltered pages (the common ones) are prepared, with and without a cursor. */
function invitationsPage(db: Executor, options: { after: boolean; status: boolean; student: boolean }) {
  return selectWithCaller(
    db,
    {
      rule: 'tenantTeacher',
      tenantId: sql.placeholder('tenantId'),
      orderBy: (item) => [asc(item.id as SQL)],
    },
    (gate) =>
      db
        .select(guardianInvitationColumns)
        .from(g)
        .where(
          and(
            gate,
            eq(g.tenantId, sql.placeholder('tenantId')),
            options.after ? gt(g.id, sql.placeholder('afterId')) : undefined,
            options.status ? eq(guardianInvitationStatusNow, sql.placeholder('status')) : undefined,
            options.student ? eq(g.studentUserId, sql.placeholder('studentUserId')) : undefined,
          ),
        )
        .orderBy(asc(g.id))
        .limit(sql.placeholder('limit')),
  );
}

const UNFILTERED = {
  first: preparedPer((db) =>
    invitationsPage(db, { after: false, status: false, student: false }).prepare(
      'guardian_invitations_page_first',
    ),
  ),
  next: preparedPer((db) =>
    invitationsPage(db, { after: true, status: false, student: false }).prepare(
      'guardian_invitations_page_next',
    ),
  ),
};

/** The caller (with its role in the tenant) and a page of the tenant's guardian invitations, in one statement. */
export async function listGuardianInvitationsAs(
  db: Executor,
  subject: string,
  filters: GuardianInvitationFilters,
): Promise<CallerRead<GuardianInvitationView>> {
  const after = filters.afterId !== undefined;
  const status = filters.status !== undefined;
  const byStudent = filters.studentUserId !== undefined;
  const statement =
    status || byStudent
      ? invitationsPage(db, { after, status, student: byStudent })
      : (after ? UNFILTERED.next : UNFILTERED.first)(db);
  return callerReadOf(await statement.execute({ subject, ...filters }));
}

export type MyGuardianInvitationView = GuardianInvitationView & {
  tenantSlug: string;
  tenantName: string;
  studentDisplayName: string | null;
};

/**
 * The pending invitations addressed to the caller's verified email, in every tenant that is not
 * deleted, with the student's name (their own, or the one the school gave them) and nothing else
 * of them: the invitee needs to know whose guardian they are asked to be.
 */
const myGuardianInvitations = preparedPer((db) =>
  selectWithCaller(db, { rule: 'authenticated', orderBy: (item) => [asc(item.id as SQL)] }, (_gate, caller) =>
    db
      .select({
        ...guardianInvitationColumns,
        tenantSlug: tenants.slug,
        tenantName: tenants.name,
        studentDisplayName: sql<
          string | null
        >`coalesce(${student.displayName}, ${tenantMemberships.invitedDisplayName})`.as(
          'student_display_name',
        ),
      })
      .from(g)
      .innerJoin(tenants, and(eq(tenants.id, g.tenantId), isNull(tenants.deletedAt)))
      .innerJoin(student, eq(student.id, g.studentUserId))
      .leftJoin(
        tenantMemberships,
        and(eq(tenantMemberships.tenantId, g.tenantId), eq(tenantMemberships.userId, g.studentUserId)),
      )
      // Only the address the identity provider verified: a caller without one has a null
      // canonical address, which equals nothing.
      .where(
        and(
          eq(g.emailCanonical, caller.emailCanonical),
          eq(g.status, 'PENDING'),
          gt(g.expiresAt, sql`now()`),
        ),
      )
      .orderBy(asc(g.id)),
  ).prepare('my_guardian_invitations'),
);

export async function listMyGuardianInvitationsAs(
  db: Executor,
  subject: string,
): Promise<CallerRead<MyGuardianInvitationView>> {
  return callerReadOf(await myGuardianInvitations(db).execute({ subject }));
}
