import { MeSchema, SchoolGuardianLinkSchema, WardSchema } from '@tms/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardianInvitations, guardianLinks, pairingCodes } from '../../src/db/schema.js';
import { addMember, createActor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { hookBody, registerAs } from '../webhooks/helpers.js';
import { codeFor, invitedGuardian, linkedGuardian, type School, schoolOf } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer({
    codeTriesPerMinute: 0,
    webhooks: { allowPrivateNetworks: true, requireHttps: false },
  });
});
afterAll(() => h?.close());

describe("the school's lists of guardians", () => {
  it("shows a TEACHER the student's guardians by name only, an ADMIN with their addresses", async () => {
    const school = await schoolOf(h);
    const { guardian, link } = await linkedGuardian(h, school, 'PARENT');
    const asTeacher = await sdkOf(h, school.teacher).guardians.listStudentGuardians(
      school.tenantId,
      school.student.userId,
    );
    expect(asTeacher).toEqual([
      SchoolGuardianLinkSchema.parse({ ...link, guardianDisplayName: guardian.subject, guardianEmail: null }),
    ]);
    const asAdmin = await sdkOf(h, school.admin).guardians.listStudentGuardians(
      school.tenantId,
      school.student.userId,
    );
    expect(asAdmin).toEqual([
      { ...link, guardianDisplayName: guardian.subject, guardianEmail: guardian.email },
    ]);
    const page = await sdkOf(h, school.teacher).guardians.listLinks(school.tenantId);
    expect(page.items).toEqual(asTeacher);
    expect((await sdkOf(h, school.owner).guardians.listLinks(school.tenantId)).items).toEqual(asAdmin);
  });

  it('lists a student without guardians as none, and a user who is no student as STUDENT_NOT_FOUND', async () => {
    const school = await schoolOf(h);
    const teacher = sdkOf(h, school.teacher).guardians;
    expect(await teacher.listStudentGuardians(school.tenantId, school.student.userId)).toEqual([]);
    expect(await refusal(teacher.listStudentGuardians(school.tenantId, school.admin.userId))).toEqual(
      refused(404, 'STUDENT_NOT_FOUND'),
    );
  });

  it('pages the tenant links oldest first, filtered by status', async () => {
    const school = await schoolOf(h);
    const first = await linkedGuardian(h, school);
    const second = await linkedGuardian(h, school);
    const third = await linkedGuardian(h, school);
    await sdkOf(h, school.admin).guardians.removeLink(school.tenantId, second.link.guardianLinkId);
    const sdk = sdkOf(h, school.teacher).guardians;
    const one = await sdk.listLinks(school.tenantId, { limit: 1 });
    expect(one.items.map((l) => l.guardianLinkId)).toEqual([first.link.guardianLinkId]);
    const rest = await sdk.listLinks(school.tenantId, { limit: 5, cursor: one.nextCursor ?? '' });
    expect(rest.items.map((l) => l.guardianLinkId)).toEqual([
      second.link.guardianLinkId,
      third.link.guardianLinkId,
    ]);
    expect(rest.nextCursor).toBeNull();
    const revoked = await sdk.listLinks(school.tenantId, { status: 'REVOKED' });
    expect(revoked.items.map((l) => [l.guardianLinkId, l.status])).toEqual([
      [second.link.guardianLinkId, 'REVOKED'],
    ]);
    expect(await refusal(sdk.listLinks(school.tenantId, { cursor: 'not-ours' }))).toEqual(
      refused(400, 'VALIDATION_FAILED'),
    );
  });

  it('refuses a STUDENT the lists, and a guardian as a stranger', async () => {
    const school = await schoolOf(h);
    const { guardian } = await linkedGuardian(h, school);
    const student = sdkOf(h, school.student).guardians;
    expect(await refusal(student.listLinks(school.tenantId))).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
    expect(await refusal(student.listStudentGuardians(school.tenantId, school.student.userId))).toEqual(
      refused(403, 'INSUFFICIENT_ROLE'),
    );
    const asGuardian = sdkOf(h, guardian);
    expect(await refusal(asGuardian.guardians.listLinks(school.tenantId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
    expect(
      await refusal(asGuardian.guardians.listStudentGuardians(school.tenantId, school.student.userId)),
    ).toEqual(refused(403, 'TENANT_ACCESS_DENIED'));
    // A link opens none of the tenant's routes: its member list first.
    expect(await refusal(asGuardian.memberships.list(school.tenantId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
    expect(await refusal(asGuardian.memberships.get(school.tenantId, school.studentMembershipId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
    expect(await refusal(asGuardian.guardians.accessOf(school.tenantId, school.student.userId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
  });
});

describe('DELETE /tenants/:tenantId/guardian-links/:guardianLinkId', () => {
  it('lets an ADMIN revoke a link: kept, REVOKED, recorded; again answers it as it is', async () => {
    const school = await schoolOf(h);
    const { link } = await linkedGuardian(h, school);
    const admin = sdkOf(h, school.admin);
    const revoked = await admin.guardians.removeLink(school.tenantId, link.guardianLinkId);
    expect(revoked).toMatchObject({ ...link, status: 'REVOKED', revokedAt: expect.any(String) });
    expect(await admin.guardians.removeLink(school.tenantId, link.guardianLinkId)).toEqual(revoked);
    const trail = await admin.auditEvents.listForTenant(school.tenantId, { targetId: link.guardianLinkId });
    expect(trail.items.reverse().map((e) => [e.action, e.before, e.after])).toEqual([
      ['guardian_link.created', null, link],
      ['guardian_link.revoked', link, revoked],
    ]);
  });

  it('lets the guardian revoke their own link, and nobody else theirs', async () => {
    const school = await schoolOf(h);
    const mine = await linkedGuardian(h, school);
    const theirs = await linkedGuardian(h, school);
    const me = sdkOf(h, mine.guardian).guardians;
    expect(await refusal(me.removeLink(school.tenantId, theirs.link.guardianLinkId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
    const revoked = await me.removeLink(school.tenantId, mine.link.guardianLinkId);
    expect(revoked.status).toBe('REVOKED');
    expect(await me.listWards()).toEqual([]);
  });

  it('refuses the student and a TEACHER (INSUFFICIENT_ROLE), a stranger as one, a missing link to an ADMIN', async () => {
    const school = await schoolOf(h);
    const { link } = await linkedGuardian(h, school);
    for (const actor of [school.student, school.teacher])
      expect(
        await refusal(sdkOf(h, actor).guardians.removeLink(school.tenantId, link.guardianLinkId)),
      ).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
    const stranger = sdkOf(h, await createActor(h));
    expect(await refusal(stranger.guardians.removeLink(school.tenantId, link.guardianLinkId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
    const other = await schoolOf(h);
    expect(
      await refusal(sdkOf(h, other.admin).guardians.removeLink(other.tenantId, link.guardianLinkId)),
    ).toEqual(refused(404, 'GUARDIAN_LINK_NOT_FOUND'));
  });
});

describe('what a guardian and a student see of their own', () => {
  it('lists the wards with their names and membership status, in every tenant, ACTIVE links only', async () => {
    const school = await schoolOf(h);
    const other = await schoolOf(h);
    const { guardian, link } = await linkedGuardian(h, school, 'PARENT');
    const { code } = await codeFor(h, other);
    const second = await sdkOf(h, guardian).guardians.redeem({ code, relationship: 'RELATIVE' });
    await sdkOf(h, school.admin).memberships.suspend(school.tenantId, school.studentMembershipId, {
      reason: 'holiday',
    });
    const wards = await sdkOf(h, guardian).guardians.listWards();
    expect(wards).toEqual([
      WardSchema.parse({
        guardianLinkId: link.guardianLinkId,
        tenantId: school.tenantId,
        tenantSlug: school.slug,
        tenantName: `Tenant ${school.slug}`,
        studentUserId: school.student.userId,
        studentDisplayName: school.student.subject,
        relationship: 'PARENT',
        membershipStatus: 'SUSPENDED',
        createdAt: link.createdAt,
      }),
      expect.objectContaining({ guardianLinkId: second.guardianLinkId, membershipStatus: 'ACTIVE' }),
    ]);
    // Nothing more of a suspended student: not why, not since when.
    expect(JSON.stringify(wards)).not.toContain('holiday');
    const me = MeSchema.parse(await sdkOf(h, guardian).me());
    expect(me.memberships).toEqual([]);
    expect(me.guardianOf).toEqual(
      [
        {
          tenantId: school.tenantId,
          tenantSlug: school.slug,
          tenantName: `Tenant ${school.slug}`,
          studentUserIds: [school.student.userId],
        },
        {
          tenantId: other.tenantId,
          tenantSlug: other.slug,
          tenantName: `Tenant ${other.slug}`,
          studentUserIds: [other.student.userId],
        },
      ].sort((x, y) => x.tenantId.localeCompare(y.tenantId)),
    );
  });

  it('shows a student their own guardians, never anyone else’s', async () => {
    const school = await schoolOf(h);
    const { guardian, link } = await linkedGuardian(h, school, 'GUARDIAN');
    const sibling = await addMember(h, school.tenantId, 'STUDENT');
    await linkedGuardian(h, school, 'PARENT', sibling.actor);
    expect(await sdkOf(h, school.student).guardians.listMyGuardians()).toEqual([
      {
        guardianLinkId: link.guardianLinkId,
        tenantId: school.tenantId,
        guardianUserId: guardian.userId,
        guardianDisplayName: guardian.subject,
        relationship: 'GUARDIAN',
        source: 'PAIRING_CODE',
        createdAt: link.createdAt,
      },
    ]);
    // The sibling's guardian is not this student's business, nor any other student's.
    expect(
      await refusal(
        sdkOf(h, school.student).guardians.listStudentGuardians(school.tenantId, sibling.actor.userId),
      ),
    ).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
    expect(await sdkOf(h, guardian).guardians.listMyGuardians()).toEqual([]);
  });
});

describe('GET /tenants/:tenantId/access/:userId', () => {
  it("answers a member's role and status, a guardian's students, nulls for anyone else", async () => {
    const school = await schoolOf(h);
    const { guardian } = await linkedGuardian(h, school);
    const admin = sdkOf(h, school.admin).guardians;
    expect(await admin.accessOf(school.tenantId, guardian.userId)).toEqual({
      tenantId: school.tenantId,
      userId: guardian.userId,
      role: null,
      roleLevel: null,
      status: null,
      guardianOf: [school.student.userId],
    });
    expect(await admin.accessOf(school.tenantId, school.teacher.userId)).toMatchObject({
      role: 'TEACHER',
      roleLevel: 20,
      status: 'ACTIVE',
      guardianOf: [],
    });
    const nobody = await createActor(h);
    expect(await admin.accessOf(school.tenantId, nobody.userId)).toMatchObject({
      role: null,
      guardianOf: [],
    });
    const superAdmin = sdkOf(h, await createSuperAdmin(h)).guardians;
    expect((await superAdmin.accessOf(school.tenantId, guardian.userId)).guardianOf).toEqual([
      school.student.userId,
    ]);
    expect(
      await refusal(sdkOf(h, school.teacher).guardians.accessOf(school.tenantId, guardian.userId)),
    ).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
  });
});

describe('when the student leaves', () => {
  it("revokes the student's links and live codes when their membership is removed, each recorded", async () => {
    const school = await schoolOf(h);
    const { guardian, link } = await linkedGuardian(h, school);
    const { code } = await codeFor(h, school);
    const admin = sdkOf(h, school.admin);
    await admin.memberships.remove(school.tenantId, school.studentMembershipId);
    expect(await sdkOf(h, guardian).guardians.listWards()).toEqual([]);
    expect((await sdkOf(h, guardian).me()).guardianOf).toEqual([]);
    const trail = await admin.auditEvents.listForTenant(school.tenantId, { targetId: link.guardianLinkId });
    expect(trail.items[0]).toMatchObject({
      action: 'guardian_link.revoked',
      actor: { userId: school.admin.userId },
      after: { status: 'REVOKED' },
    });
    expect(
      await refusal(sdkOf(h, await createActor(h)).guardians.redeem({ code, relationship: 'PARENT' })),
    ).toEqual(refused(404, 'PAIRING_CODE_NOT_FOUND'));
  });

  // The removal reads whether the student holds anything to revoke with the membership, and sends
  // no revocation when not (guardian-ties.sql.ts): each kind of tie alone must still be seen. Read
  // from the tables: the API refuses a removed student's code or invitation either way.
  it('revokes a link, a live code or a pending guardian invitation when it is the only tie', async () => {
    const removeStudent = (school: School) =>
      sdkOf(h, school.admin).memberships.remove(school.tenantId, school.studentMembershipId);

    const linked = await schoolOf(h);
    const { link } = await linkedGuardian(h, linked);
    await removeStudent(linked);
    const [linkRow] = await h.db
      .select({ status: guardianLinks.status })
      .from(guardianLinks)
      .where(and(eq(guardianLinks.tenantId, linked.tenantId), eq(guardianLinks.id, link.guardianLinkId)));
    expect(linkRow?.status).toBe('REVOKED');

    const coded = await schoolOf(h);
    const code = await codeFor(h, coded);
    await removeStudent(coded);
    const [codeRow] = await h.db
      .select({ revokedAt: pairingCodes.revokedAt })
      .from(pairingCodes)
      .where(and(eq(pairingCodes.tenantId, coded.tenantId), eq(pairingCodes.id, code.pairingCodeId)));
    expect(codeRow?.revokedAt).toBeInstanceOf(Date);

    const invited = await schoolOf(h);
    const { invitation } = await invitedGuardian(h, invited);
    await removeStudent(invited);
    const [invitationRow] = await h.db
      .select({ status: guardianInvitations.status })
      .from(guardianInvitations)
      .where(
        and(
          eq(guardianInvitations.tenantId, invited.tenantId),
          eq(guardianInvitations.id, invitation.guardianInvitationId),
        ),
      );
    expect(invitationRow?.status).toBe('REVOKED');
  });

  it('sends guardian link events to the webhooks that want them', async () => {
    const school = await schoolOf(h);
    const hook = await registerAs(
      h,
      school.owner,
      school.tenantId,
      hookBody({ url: 'http://127.0.0.1:9/g', events: ['guardian_link.created'] }),
    );
    await linkedGuardian(h, school);
    const deliveries = await sdkOf(h, school.owner).webhooks.listDeliveries(school.tenantId, hook.webhookId);
    expect(deliveries.items.map((d) => d.type)).toEqual(['guardian_link.created']);
  });
});
