import { GuardianInvitationSchema, MyGuardianInvitationSchema } from '@tms/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/db/schema.js';
import { addMember, createActor } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { hookBody, registerAs } from '../webhooks/helpers.js';
import { invitedGuardian, lapseGuardianInvitation, linkedGuardian, schoolOf } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer({
    codeTriesPerMinute: 0,
    webhooks: { allowPrivateNetworks: true, requireHttps: false },
  });
});
afterAll(() => h?.close());

const DAY = 86_400_000;

const trailOf = (tenantId: string, targetId: string) =>
  h.db
    .select({ action: auditEvents.action })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.targetId, targetId)))
    .orderBy(auditEvents.sequence)
    .then((rows) => rows.map((row) => row.action));

describe('inviting a guardian', () => {
  it('makes a PENDING invitation for 14 days, shown with its address to the TEACHER who made it', async () => {
    const school = await schoolOf(h);
    const { invitee, invitation } = await invitedGuardian(h, school, 'GUARDIAN');
    expect(GuardianInvitationSchema.parse(invitation)).toEqual(invitation);
    expect(invitation).toMatchObject({
      tenantId: school.tenantId,
      studentUserId: school.student.userId,
      email: invitee.email,
      relationship: 'GUARDIAN',
      status: 'PENDING',
      source: 'API',
      createdBy: school.teacher.userId,
      answeredAt: null,
      guardianUserId: null,
    });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(14 * DAY);
    expect(await trailOf(school.tenantId, invitation.guardianInvitationId)).toEqual([
      'guardian_invitation.created',
    ]);
  });

  it('refuses a second pending one to the student and address, and the rules of a guardian', async () => {
    const school = await schoolOf(h);
    const { invitee } = await invitedGuardian(h, school);
    const teacher = sdkOf(h, school.teacher).guardianInvitations;
    const again = { email: invitee.email.toUpperCase(), relationship: 'OTHER' } as const;
    expect(await refusal(teacher.create(school.tenantId, school.student.userId, again))).toEqual(
      refused(409, 'GUARDIAN_INVITATION_ALREADY_PENDING'),
    );
    // Another student of the school may have the same guardian invited.
    const { actor: sibling } = await addMember(h, school.tenantId, 'STUDENT');
    await teacher.create(school.tenantId, sibling.userId, again);
    const own = { email: school.student.email, relationship: 'PARENT' } as const;
    expect(await refusal(teacher.create(school.tenantId, school.student.userId, own))).toEqual(
      refused(409, 'GUARDIAN_OF_SELF'),
    );
    const { guardian } = await linkedGuardian(h, school);
    const linked = { email: guardian.email, relationship: 'PARENT' } as const;
    expect(await refusal(teacher.create(school.tenantId, school.student.userId, linked))).toEqual(
      refused(409, 'GUARDIAN_LINK_ALREADY_EXISTS'),
    );
    // Not a STUDENT here (a TEACHER; a user of no membership): 404, as the other guardian routes.
    for (const userId of [school.admin.userId, (await createActor(h)).userId])
      expect(await refusal(teacher.create(school.tenantId, userId, again))).toEqual(
        refused(404, 'STUDENT_NOT_FOUND'),
      );
  });

  it('refuses a STUDENT, and a guardian as a stranger', async () => {
    const school = await schoolOf(h);
    const { guardian } = await linkedGuardian(h, school);
    const body = { email: 'someone@example.test', relationship: 'PARENT' } as const;
    expect(
      await refusal(
        sdkOf(h, school.student).guardianInvitations.create(school.tenantId, school.student.userId, body),
      ),
    ).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
    expect(
      await refusal(
        sdkOf(h, guardian).guardianInvitations.create(school.tenantId, school.student.userId, body),
      ),
    ).toEqual(refused(403, 'TENANT_ACCESS_DENIED'));
    expect(await refusal(sdkOf(h, guardian).guardianInvitations.list(school.tenantId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
  });
});

describe("the invitee's answer", () => {
  it('lists it to its invitee only, and accepting makes an ACTIVE link with its relationship', async () => {
    const school = await schoolOf(h);
    const { invitee, invitation } = await invitedGuardian(h, school, 'RELATIVE');
    const mine = await sdkOf(h, invitee).guardianInvitations.listMine();
    expect(mine).toEqual([
      {
        ...invitation,
        tenantSlug: expect.any(String),
        tenantName: expect.any(String),
        studentDisplayName: school.student.subject,
      },
    ]);
    expect(MyGuardianInvitationSchema.parse(mine[0])).toEqual(mine[0]);
    const stranger = sdkOf(h, await createActor(h)).guardianInvitations;
    expect(await stranger.listMine()).toEqual([]);
    expect(await refusal(stranger.accept(invitation.guardianInvitationId))).toEqual(
      refused(404, 'GUARDIAN_INVITATION_NOT_FOUND'),
    );
    const link = await sdkOf(h, invitee).guardianInvitations.accept(invitation.guardianInvitationId);
    expect(link).toMatchObject({
      tenantId: school.tenantId,
      studentUserId: school.student.userId,
      guardianUserId: invitee.userId,
      relationship: 'RELATIVE',
      status: 'ACTIVE',
      source: 'INVITATION',
    });
    expect((await sdkOf(h, invitee).guardians.listWards()).map((w) => w.studentUserId)).toEqual([
      school.student.userId,
    ]);
    expect(await sdkOf(h, invitee).guardianInvitations.listMine()).toEqual([]);
    expect(
      await refusal(sdkOf(h, invitee).guardianInvitations.accept(invitation.guardianInvitationId)),
    ).toEqual(refused(409, 'INVITATION_NOT_PENDING'));
    const [listed] = (await sdkOf(h, school.admin).guardianInvitations.list(school.tenantId)).items;
    expect(listed).toMatchObject({
      status: 'ACCEPTED',
      guardianUserId: invitee.userId,
      email: invitee.email,
    });
    expect(listed?.answeredAt).not.toBeNull();
    expect(await trailOf(school.tenantId, invitation.guardianInvitationId)).toEqual([
      'guardian_invitation.created',
      'guardian_invitation.accepted',
    ]);
    expect(await trailOf(school.tenantId, link.guardianLinkId)).toEqual(['guardian_link.created']);
  });

  it('brings a REVOKED link back ACTIVE, as a pairing code does', async () => {
    const school = await schoolOf(h);
    const { guardian, link } = await linkedGuardian(h, school, 'PARENT');
    await sdkOf(h, school.admin).guardians.removeLink(school.tenantId, link.guardianLinkId);
    const invitation = await sdkOf(h, school.teacher).guardianInvitations.create(
      school.tenantId,
      school.student.userId,
      { email: guardian.email, relationship: 'GUARDIAN' },
    );
    const back = await sdkOf(h, guardian).guardianInvitations.accept(invitation.guardianInvitationId);
    expect(back).toMatchObject({
      guardianLinkId: link.guardianLinkId,
      status: 'ACTIVE',
      source: 'INVITATION',
      relationship: 'GUARDIAN',
      revokedAt: null,
    });
    expect(await trailOf(school.tenantId, link.guardianLinkId)).toEqual([
      'guardian_link.created',
      'guardian_link.revoked',
      'guardian_link.reactivated',
    ]);
  });

  it('counts the six ACTIVE guardians at acceptance, and leaves the invitation PENDING', async () => {
    const school = await schoolOf(h);
    // Invited while there is room: the limit is on ACTIVE links, counted when one is made.
    const { invitee, invitation } = await invitedGuardian(h, school);
    for (let n = 0; n < 6; n++) await linkedGuardian(h, school);
    expect(
      await refusal(sdkOf(h, invitee).guardianInvitations.accept(invitation.guardianInvitationId)),
    ).toEqual(refused(409, 'GUARDIAN_LIMIT_REACHED'));
    expect((await sdkOf(h, invitee).guardianInvitations.listMine()).map((i) => i.status)).toEqual([
      'PENDING',
    ]);
  });

  it('declines, and keeps DECLINED, REVOKED and EXPIRED apart', async () => {
    const school = await schoolOf(h);
    const declined = await invitedGuardian(h, school);
    const revoked = await invitedGuardian(h, school);
    const expired = await invitedGuardian(h, school);
    const answer = await sdkOf(h, declined.invitee).guardianInvitations.decline(
      declined.invitation.guardianInvitationId,
    );
    expect(answer).toMatchObject({ status: 'DECLINED', email: declined.invitee.email });
    const teacher = sdkOf(h, school.teacher).guardianInvitations;
    const withdrawn = await teacher.revoke(school.tenantId, revoked.invitation.guardianInvitationId);
    expect(withdrawn).toMatchObject({ status: 'REVOKED', email: null });
    expect(await refusal(teacher.revoke(school.tenantId, revoked.invitation.guardianInvitationId))).toEqual(
      refused(409, 'INVITATION_NOT_PENDING'),
    );
    expect(
      await refusal(
        sdkOf(h, revoked.invitee).guardianInvitations.accept(revoked.invitation.guardianInvitationId),
      ),
    ).toEqual(refused(409, 'INVITATION_NOT_PENDING'));
    await lapseGuardianInvitation(h, expired.invitation);
    expect(
      await refusal(
        sdkOf(h, expired.invitee).guardianInvitations.accept(expired.invitation.guardianInvitationId),
      ),
    ).toEqual(refused(410, 'INVITATION_EXPIRED'));
    expect(
      await refusal(
        sdkOf(h, expired.invitee).guardianInvitations.decline(expired.invitation.guardianInvitationId),
      ),
    ).toEqual(refused(410, 'INVITATION_EXPIRED'));
    expect(await refusal(teacher.revoke(school.tenantId, expired.invitation.guardianInvitationId))).toEqual(
      refused(409, 'INVITATION_NOT_PENDING'),
    );
    const statuses = (await teacher.list(school.tenantId)).items.map((i) => i.status);
    expect(statuses).toEqual(['DECLINED', 'REVOKED', 'EXPIRED']);
    expect((await teacher.list(school.tenantId, { status: 'EXPIRED' })).items.map((i) => i.status)).toEqual([
      'EXPIRED',
    ]);
    // The lapsed invitation no longer holds the address's pending slot.
    const renewed = await teacher.create(school.tenantId, school.student.userId, {
      email: expired.invitee.email,
      relationship: 'PARENT',
    });
    expect(renewed.status).toBe('PENDING');
    expect(
      (await teacher.list(school.tenantId)).items.map((i) => [i.guardianInvitationId, i.status]),
    ).toContainEqual([expired.invitation.guardianInvitationId, 'EXPIRED']);
  });
});

describe("the school's list", () => {
  it('pages oldest first, filters by status and student, and shows addresses to ADMINs only', async () => {
    const school = await schoolOf(h);
    const first = await invitedGuardian(h, school);
    const sibling = (await addMember(h, school.tenantId, 'STUDENT')).actor;
    const second = await invitedGuardian(h, school, 'PARENT', sibling);
    const teacher = sdkOf(h, school.teacher).guardianInvitations;
    const one = await teacher.list(school.tenantId, { limit: 1 });
    expect(one.items.map((i) => [i.guardianInvitationId, i.email])).toEqual([
      [first.invitation.guardianInvitationId, null],
    ]);
    const rest = await teacher.list(school.tenantId, { limit: 1, cursor: one.nextCursor ?? '' });
    expect(rest.items.map((i) => i.guardianInvitationId)).toEqual([second.invitation.guardianInvitationId]);
    const bySibling = await sdkOf(h, school.admin).guardianInvitations.list(school.tenantId, {
      studentUserId: sibling.userId,
      status: 'PENDING',
    });
    expect(bySibling.items.map((i) => [i.guardianInvitationId, i.email])).toEqual([
      [second.invitation.guardianInvitationId, second.invitee.email],
    ]);
    expect((await teacher.list(school.tenantId, { status: 'ACCEPTED' })).items).toEqual([]);
    expect(await refusal(teacher.list(school.tenantId, { cursor: 'not-ours' }))).toEqual(
      refused(400, 'VALIDATION_FAILED'),
    );
    // Another tenant's invitation is not found here.
    const other = await schoolOf(h);
    expect(
      await refusal(
        sdkOf(h, other.teacher).guardianInvitations.revoke(
          other.tenantId,
          first.invitation.guardianInvitationId,
        ),
      ),
    ).toEqual(refused(404, 'GUARDIAN_INVITATION_NOT_FOUND'));
  });

  it('sends guardian invitation events to the webhooks that want them', async () => {
    const school = await schoolOf(h);
    const hook = await registerAs(
      h,
      school.owner,
      school.tenantId,
      hookBody({
        url: 'http://127.0.0.1:9/gi',
        events: ['guardian_invitation.created', 'guardian_invitation.accepted'],
      }),
    );
    const { invitee, invitation } = await invitedGuardian(h, school);
    await sdkOf(h, invitee).guardianInvitations.accept(invitation.guardianInvitationId);
    const deliveries = await sdkOf(h, school.owner).webhooks.listDeliveries(school.tenantId, hook.webhookId);
    expect(deliveries.items.map((d) => d.type).sort()).toEqual([
      'guardian_invitation.accepted',
      'guardian_invitation.created',
    ]);
  });
});
