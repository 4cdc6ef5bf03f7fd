import type { GuardianLinkStatus, MembershipStatus, Role } from '@tms/contract';
import { and, asc, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type GuardianLinkRow, guardianLinks, tenantMemberships, tenants, users } from '../../db/schema.js';
import { statusOf } from '../../rules/membership-status.sql.js';

/** A link as the school reads it: with who the guardian is (the DTO keeps the address for ADMINs). */
export type SchoolLinkView = GuardianLinkRow & {
  guardianDisplayName: string | null;
  guardianEmail: string | null;
};

const guardian = alias(users, 'guardian');
const student = alias(users, 'student');
const targetUser = alias(users, 'target_user');

const linkColumns = {
  id: guardianLinks.id,
  tenantId: guardianLinks.tenantId,
  studentUserId: guardianLinks.studentUserId,
  guardianUserId: guardianLinks.guardianUserId,
  relationship: guardianLinks.relationship,
  status: guardianLinks.status,
  source: guardianLinks.source,
  createdAt: guardianLinks.createdAt,
  updatedAt: guardianLinks.updatedAt,
  revokedAt: guardianLinks.revokedAt,
};
const schoolLinkColumns = {
  ...linkColumns,
  guardianDisplayName: guardian.displayName,
  guardianEmail: guardian.email,
};

const TEACHER_READ = { rule: 'tenantTeacher', tenantId: sql.placeholder('tenantId') } as const;

/**
 * The student's membership (STUDENT only) and their links beside it: a row without a link says the
 * student exists and has none; no row, that the user is no student here.
 */
const studentGuardians = preparedPer((db) =>
  selectWithCaller(db, { ...TEACHER_READ, orderBy: (item) => [sql`${item.id as SQL} nulls first`] }, (gate) =>
    db
      .select({
        // First, and never null: the row mapper reads an item whose first column is null as none.
        memberUserId: tenantMemberships.userId,
        ...schoolLinkColumns,
      })
      .from(tenantMemberships)
      .leftJoin(
        guardianLinks,
        and(
          eq(guardianLinks.tenantId, tenantMemberships.tenantId),
          eq(guardianLinks.studentUserId, tenantMemberships.userId),
        ),
      )
      .leftJoin(guardian, eq(guardian.id, guardianLinks.guardianUserId))
      .where(
        and(
          gate,
          eq(tenantMemberships.tenantId, sql.placeholder('tenantId')),
          eq(tenantMemberships.userId, sql.placeholder('userId')),
          eq(tenantMemberships.role, 'STUDENT'),
        ),
      )
      .orderBy(asc(guardianLinks.id)),
  ).prepare('student_guardians'),
);

type Nullable<T> = { [K in keyof T]: T[K] | null };

export async function listStudentGuardiansAs(
  db: Executor,
  subject: string,
  tenantId: string,
  userId: string,
): Promise<CallerRead<{ memberUserId: string } & Nullable<SchoolLinkView>>> {
  return callerReadOf(await studentGuardians(db).execute({ subject, tenantId, userId }));
}

function linksPage(db: Executor, options: { after: boolean; status: boolean }) {
  return selectWithCaller(db, { ...TEACHER_READ, orderBy: (item) => [asc(item.id as SQL)] }, (gate) =>
    db
      .select(schoolLinkColumns)
      .from(guardianLinks)
      .innerJoin(guardian, eq(guardian.id, guardianLinks.guardianUserId))
      .where(
        and(
          gate,
          eq(guardianLinks.tenantId, sql.placeholder('tenantId')),
          options.after ? gt(guardianLinks.id, sql.placeholder('afterId')) : undefined,
          options.status ? eq(guardianLinks.status, sql.placeholder('status')) : undefined,
        ),
      )
      .orderBy(asc(guardianLinks.id))
      .limit(sql.placeholder('limit')),
  );
}

const LINK_PAGES = {
  first: preparedPer((db) =>
    linksPage(db, { after: false, status: false }).prepare('guardian_links_page_first'),
  ),
  next: preparedPer((db) =>
    linksPage(db, { after: true, status: false }).prepare('guardian_links_page_next'),
  ),
  firstOf: preparedPer((db) =>
    linksPage(db, { after: false, status: true }).prepare('guardian_links_page_first_of_status'),
  ),
  nextOf: preparedPer((db) =>
    linksPage(db, { after: true, status: true }).prepare('guardian_links_page_next_of_status'),
  ),
};

export async function listLinksAs(
  db: Executor,
  subject: string,
  filters: { tenantId: string; status?: GuardianLinkStatus; afterId?: string; limit: number },
): Promise<CallerRead<SchoolLinkView>> {
  const after = filters.afterId !== undefined;
  const page = filters.status
    ? after
      ? LINK_PAGES.nextOf
      : LINK_PAGES.firstOf
    : after
      ? LINK_PAGES.next
      : LINK_PAGES.first;
  return callerReadOf(await page(db).execute({ subject, ...filters }));
}

export type WardView = {
  id: string;
  tenantId: string;
  tenantSlug: string;
  tenantName: string;
  studentUserId: string;
  studentDisplayName: string | null;
  relationship: GuardianLinkRow['relationship'];
  membershipStatus: MembershipStatus;
  createdAt: Date;
};

/**
 * The caller's ACTIVE links as a guardian, in every tenant that is not deleted: the student's name
 * and their membership's status, nothing else of it (an ACTIVE link outlives no membership: the
 * removal revokes it).
 */
const wards = preparedPer((db) =>
  selectWithCaller(db, { rule: 'authenticated', orderBy: (item) => [asc(item.id as SQL)] }, (_gate, caller) =>
    db
      .select({
        id: guardianLinks.id,
        tenantId: guardianLinks.tenantId,
        tenantSlug: tenants.slug,
        tenantName: tenants.name,
        studentUserId: guardianLinks.studentUserId,
        studentDisplayName: sql<
          string | null
        >`coalesce(${student.displayName}, ${tenantMemberships.invitedDisplayName})`.as(
          'student_display_name',
        ),
        relationship: guardianLinks.relationship,
        membershipStatus: statusOf().as('membership_status'),
        createdAt: guardianLinks.createdAt,
      })
      .from(guardianLinks)
      .innerJoin(tenants, and(eq(tenants.id, guardianLinks.tenantId), isNull(tenants.deletedAt)))
      .innerJoin(student, eq(student.id, guardianLinks.studentUserId))
      .innerJoin(
        tenantMemberships,
        and(
          eq(tenantMemberships.tenantId, guardianLinks.tenantId),
          eq(tenantMemberships.userId, guardianLinks.studentUserId),
        ),
      )
      .where(and(eq(guardianLinks.guardianUserId, caller.id), eq(guardianLinks.status, 'ACTIVE')))
      .orderBy(asc(guardianLinks.id)),
  ).prepare('my_wards'),
);

export async function listWardsAs(db: Executor, subject: string): Promise<CallerRead<WardView>> {
  return callerReadOf(await wards(db).execute({ subject }));
}

export type MyGuardianView = {
  id: string;
  tenantId: string;
  guardianUserId: string;
  guardianDisplayName: string | null;
  relationship: GuardianLinkRow['relationship'];
  source: GuardianLinkRow['source'];
  createdAt: Date;
};

/** The caller's ACTIVE guardians as a student, in every tenant that is not deleted. */
const myGuardians = preparedPer((db) =>
  selectWithCaller(db, { rule: 'authenticated', orderBy: (item) => [asc(item.id as SQL)] }, (_gate, caller) =>
    db
      .select({
        id: guardianLinks.id,
        tenantId: guardianLinks.tenantId,
        guardianUserId: guardianLinks.guardianUserId,
        guardianDisplayName: guardian.displayName,
        relationship: guardianLinks.relationship,
        source: guardianLinks.source,
        createdAt: guardianLinks.createdAt,
      })
      .from(guardianLinks)
      .innerJoin(tenants, and(eq(tenants.id, guardianLinks.tenantId), isNull(tenants.deletedAt)))
      .innerJoin(guardian, eq(guardian.id, guardianLinks.guardianUserId))
      .where(and(eq(guardianLinks.studentUserId, caller.id), eq(guardianLinks.status, 'ACTIVE')))
      .orderBy(asc(guardianLinks.id)),
  ).prepare('my_guardians'),
);

export async function listMyGuardiansAs(db: Executor, subject: string): Promise<CallerRead<MyGuardianView>> {
  return callerReadOf(await myGuardians(db).execute({ subject }));
}

export type AccessView = {
  role: Role | null;
  status: MembershipStatus | null;
  guardianOf: string[];
};

/** A user's membership in the tenant (if any) and the students they are an ACTIVE guardian of there. */
const accessOf = preparedPer((db) =>
  selectWithCaller(db, { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') }, (gate) =>
    db
      .select({
        role: sql<Role | null>`${tenantMemberships.role}`.as('member_role'),
        status:
          sql<MembershipStatus | null>`case when ${tenantMemberships.id} is null then null else ${statusOf()} end`.as(
            'member_status',
          ),
        guardianOf: sql<
          string[]
        >`array(select ${guardianLinks.studentUserId} from ${guardianLinks} where ${guardianLinks.tenantId} = ${sql.placeholder('tenantId')} and ${guardianLinks.guardianUserId} = ${sql.placeholder('userId')} and ${guardianLinks.status} = 'ACTIVE' order by ${guardianLinks.studentUserId})`.as(
          'guardian_of',
        ),
      })
      .from(targetUser)
      .leftJoin(
        tenantMemberships,
        and(
          eq(tenantMemberships.tenantId, sql.placeholder('tenantId')),
          eq(tenantMemberships.userId, targetUser.id),
        ),
      )
      .where(and(gate, eq(targetUser.id, sql.placeholder('userId')))),
  ).prepare('tenant_access_of'),
);

export async function findAccessOfAs(
  db: Executor,
  subject: string,
  tenantId: string,
  userId: string,
): Promise<CallerRead<AccessView>> {
  return callerReadOf(await accessOf(db).execute({ subject, tenantId, userId }));
}
