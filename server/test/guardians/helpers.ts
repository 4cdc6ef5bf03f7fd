import type { GuardianRelationship, PairingCode } from '@tms/contract';
import { and, eq, sql } from 'drizzle-orm';
import { guardianInvitations, pairingCodes } from '../../src/db/schema.js';
import {
  type Actor,
  addMember,
  createActor,
  createTenantFixture,
  type TenantFixture,
} from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';

/** A school with a member of each role but OWNER (the fixture's), and a student to link guardians to. */
export type School = TenantFixture & {
  admin: Actor;
  teacher: Actor;
  student: Actor;
  studentMembershipId: string;
};

export async function schoolOf(h: TestServer): Promise<School> {
  const t = await createTenantFixture(h);
  const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const teacher = (await addMember(h, t.tenantId, 'TEACHER')).actor;
  const student = await addMember(h, t.tenantId, 'STUDENT');
  return { ...t, admin, teacher, student: student.actor, studentMembershipId: student.membershipId };
}

/** A pairing code for the student, made by the teacher. */
export async function codeFor(
  h: TestServer,
  school: School,
  student: Actor = school.student,
): Promise<PairingCode> {
  return sdkOf(h, school.teacher).guardians.createPairingCode(school.tenantId, student.userId);
}

/** A new user linked as guardian of the school's student, through a pairing code. */
export async function linkedGuardian(
  h: TestServer,
  school: School,
  relationship: GuardianRelationship = 'PARENT',
  student: Actor = school.student,
) {
  const guardian = await createActor(h);
  const { code } = await codeFor(h, school, student);
  const link = await sdkOf(h, guardian).guardians.redeem({ code, relationship });
  return { guardian, link };
}

/** Drives time: the code's `expires_at` a minute in the past, as if its seven days had passed. */
export async function lapseCode(h: TestServer, code: PairingCode): Promise<void> {
  await h.db
    .update(pairingCodes)
    .set({ expiresAt: sql`now() - interval '1 minute'` })
    .where(and(eq(pairingCodes.tenantId, code.tenantId), eq(pairingCodes.id, code.pairingCodeId)));
}

/** Drives time: the guardian invitation's `expires_at` a minute in the past, as if its 14 days had passed. */
export async function lapseGuardianInvitation(
  h: TestServer,
  invitation: { tenantId: string; guardianInvitationId: string },
): Promise<void> {
  await h.db
    .update(guardianInvitations)
    .set({ expiresAt: sql`now() - interval '1 minute'` })
    .where(
      and(
        eq(guardianInvitations.tenantId, invitation.tenantId),
        eq(guardianInvitations.id, invitation.guardianInvitationId),
      ),
    );
}

/** The school's TEACHER invites a new user, by their address, to be the student's guardian. */
export async function invitedGuardian(
  h: TestServer,
  school: School,
  relationship: GuardianRelationship = 'PARENT',
  student: Actor = school.student,
) {
  const invitee = await createActor(h);
  const invitation = await sdkOf(h, school.teacher).guardianInvitations.create(
    school.tenantId,
    student.userId,
    { email: invitee.email, relationship },
  );
  return { invitee, invitation };
}
