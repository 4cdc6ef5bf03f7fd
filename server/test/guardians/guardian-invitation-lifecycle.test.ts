import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, guardianInvitations } from '../../src/db/schema.js';
import { type Actor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { invitedGuardian, schoolOf } from './helpers.js';

/* What happens to guardian invitations when the student leaves, and when a person is erased. */

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer({ codeTriesPerMinute: 0 });
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

const rowOf = async (tenantId: string, id: string) => {
  const [row] = await h.db
    .select()
    .from(guardianInvitations)
    .where(and(eq(guardianInvitations.tenantId, tenantId), eq(guardianInvitations.id, id)));
  return row;
};
const trailOf = (tenantId: string) =>
  h.db.select().from(auditEvents).where(eq(auditEvents.tenantId, tenantId)).orderBy(auditEvents.sequence);

describe('the student leaves', () => {
  it("revokes the student's pending invitations, each recorded, and leaves the answered ones be", async () => {
    const school = await schoolOf(h);
    const pending = await invitedGuardian(h, school);
    const accepted = await invitedGuardian(h, school);
    await sdkOf(h, accepted.invitee).guardianInvitations.accept(accepted.invitation.guardianInvitationId);
    await sdkOf(h, school.owner).memberships.remove(school.tenantId, school.studentMembershipId);
    expect((await rowOf(school.tenantId, pending.invitation.guardianInvitationId))?.status).toBe('REVOKED');
    expect((await rowOf(school.tenantId, accepted.invitation.guardianInvitationId))?.status).toBe('ACCEPTED');
    const revoked = (await trailOf(school.tenantId)).filter(
      (e) => e.targetId === pending.invitation.guardianInvitationId,
    );
    expect(revoked.map((e) => e.action)).toEqual([
      'guardian_invitation.created',
      'guardian_invitation.revoked',
    ]);
    expect(
      await refusal(
        sdkOf(h, pending.invitee).guardianInvitations.accept(pending.invitation.guardianInvitationId),
      ),
    ).toEqual(refused(409, 'INVITATION_NOT_PENDING'));
  });
});

describe('erasing a user (DELETE /admin/users/:userId)', () => {
  it("pseudonymises the invitee's invitations, revokes the pending ones, and leaves no address in the trail", async () => {
    const school = await schoolOf(h);
    const { invitee, invitation } = await invitedGuardian(h, school);
    const other = await schoolOf(h);
    const answered = await sdkOf(h, other.teacher).guardianInvitations.create(
      other.tenantId,
      other.student.userId,
      { email: invitee.email, relationship: 'RELATIVE' },
    );
    await sdkOf(h, invitee).guardianInvitations.decline(answered.guardianInvitationId);
    await sdkOf(h, superAdmin).users.erase(invitee.userId);
    const row = await rowOf(school.tenantId, invitation.guardianInvitationId);
    expect(row).toMatchObject({ status: 'REVOKED', email: expect.stringMatching(/@erased\.invalid$/) });
    expect((await rowOf(other.tenantId, answered.guardianInvitationId))?.status).toBe('DECLINED');
    for (const tenantId of [school.tenantId, other.tenantId]) {
      const text = JSON.stringify(await trailOf(tenantId));
      expect(text).not.toContain(invitee.email);
      expect(text).toContain('@erased.invalid');
    }
  });

  it('revokes the pending invitations of an erased student, and keeps those they made', async () => {
    const school = await schoolOf(h);
    const { invitation } = await invitedGuardian(h, school);
    await sdkOf(h, superAdmin).users.erase(school.student.userId);
    expect((await rowOf(school.tenantId, invitation.guardianInvitationId))?.status).toBe('REVOKED');
    const other = await schoolOf(h);
    const made = await invitedGuardian(h, other);
    await sdkOf(h, superAdmin).users.erase(other.teacher.userId);
    expect(await rowOf(other.tenantId, made.invitation.guardianInvitationId)).toMatchObject({
      status: 'PENDING',
      createdByUserId: other.teacher.userId,
    });
  });
});
