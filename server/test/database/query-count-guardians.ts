import { createClient } from '@tms/client';
import { type Actor, addMember, createActor, createTenantFixture } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import type { AnyResponse } from '../support/memberships.js';

/*
 * The guardian routes' cases of query-count.test.ts (their fixture and their costs), kept apart as
 * the webhooks' are. Reads are one statement with the caller. A tenant's change is the tenant's
 * lock, the caller read after it, then the change's own statements and its audit event. A redeemed
 * code reads its caller first (a write), then finds the code's tenant, locks it, and decides.
 */

export type GuardianFixture = {
  tenantId: string;
  teacher: Actor;
  admin: Actor;
  student: Actor;
  guardian: Actor;
  /** A second guardian, to redeem `code` in the count. */
  newcomer: Actor;
  code: string;
  guardianLinkId: string;
  /** Invited (PENDING) to be the student's guardian: to accept, and one to decline. */
  invitee: Actor;
  acceptId: string;
  declineId: string;
  /** A PENDING invitation for the school to revoke. */
  revokeId: string;
};

export async function guardianFixture(h: TestServer): Promise<GuardianFixture> {
  const t = await createTenantFixture(h);
  const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const teacher = (await addMember(h, t.tenantId, 'TEACHER')).actor;
  const student = (await addMember(h, t.tenantId, 'STUDENT')).actor;
  const guardian = await createActor(h);
  const sdk = (actor: Actor) => createClient({ baseUrl: h.baseUrl, token: actor.token, retries: false });
  const first = await sdk(teacher).guardians.createPairingCode(t.tenantId, student.userId);
  const link = await sdk(guardian).guardians.redeem({ code: first.code, relationship: 'PARENT' });
  const { code } = await sdk(teacher).guardians.createPairingCode(t.tenantId, student.userId);
  const invitee = await createActor(h);
  const invite = async (email: string, userId = student.userId) =>
    (await sdk(teacher).guardianInvitations.create(t.tenantId, userId, { email, relationship: 'PARENT' }))
      .guardianInvitationId;
  const sibling = (await addMember(h, t.tenantId, 'STUDENT')).actor;
  const acceptId = await invite(invitee.email);
  const declineId = await invite(invitee.email, sibling.userId);
  const revokeId = await invite(`${invitee.subject}.other@example.test`);
  return {
    tenantId: t.tenantId,
    teacher,
    admin,
    student,
    guardian,
    newcomer: await createActor(h),
    code,
    guardianLinkId: link.guardianLinkId,
    invitee,
    acceptId,
    declineId,
    revokeId,
  };
}

type Cost = { statements: number; transactions: number };
type GuardianCase = {
  route: string;
  name: string;
  status: number;
  cost: Cost;
  call: (g: GuardianFixture) => Promise<AnyResponse>;
};

const reads = (n: number): Cost => ({ statements: n, transactions: 0 });
const writes = (n: number): Cost => ({ statements: n, transactions: 1 });
const student = (g: GuardianFixture) => ({ tenantId: g.tenantId, userId: g.student.userId });

export const GUARDIAN_CASES: GuardianCase[] = [
  {
    route: 'guardianInvitations.create',
    name: 'lock, caller with its role, the student and the address, lapsed expired, insert, audit event',
    status: 201,
    cost: writes(6),
    call: (g) =>
      g.teacher.api.guardianInvitations.create({
        params: student(g),
        body: { email: `${g.newcomer.subject}@example.test`, relationship: 'OTHER' },
      }),
  },
  {
    route: 'guardianInvitations.list',
    name: 'caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (g) => g.teacher.api.guardianInvitations.list({ params: { tenantId: g.tenantId }, query: {} }),
  },
  {
    route: 'guardianInvitations.revoke',
    name: 'lock, caller with its role, the invitation, revoke, audit event',
    status: 200,
    cost: writes(5),
    call: (g) =>
      g.teacher.api.guardianInvitations.revoke({
        params: { tenantId: g.tenantId, guardianInvitationId: g.revokeId },
        body: {},
      }),
  },
  {
    route: 'guardianInvitations.listMine',
    name: 'caller with the invitations to its address',
    status: 200,
    cost: reads(1),
    call: (g) => g.invitee.api.guardianInvitations.listMine(),
  },
  {
    route: 'guardianInvitations.accept',
    name: "caller; then the invitation's tenant, lock, caller, the invitation, the student, the pair's link, the count, insert, link event, accepted, invitation event",
    status: 201,
    cost: writes(12),
    call: (g) =>
      g.invitee.api.guardianInvitations.accept({ params: { guardianInvitationId: g.acceptId }, body: {} }),
  },
  {
    route: 'guardianInvitations.decline',
    name: "caller; then the invitation's tenant, lock, caller, the invitation, declined, audit event",
    status: 200,
    cost: writes(7),
    call: (g) =>
      g.invitee.api.guardianInvitations.decline({ params: { guardianInvitationId: g.declineId }, body: {} }),
  },
  {
    route: 'guardians.createPairingCode',
    name: 'lock, caller with its role, the student, their live codes, insert, audit event',
    status: 201,
    cost: writes(6),
    call: (g) => g.teacher.api.guardians.createPairingCode({ params: student(g), body: {} }),
  },
  {
    route: 'guardians.listStudentGuardians',
    name: 'caller with its role, the student and their links',
    status: 200,
    cost: reads(1),
    call: (g) => g.teacher.api.guardians.listStudentGuardians({ params: student(g) }),
  },
  {
    route: 'guardians.listLinks',
    name: 'caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (g) => g.admin.api.guardians.listLinks({ params: { tenantId: g.tenantId }, query: {} }),
  },
  {
    route: 'guardians.accessOf',
    name: "caller with its role, the user's membership and guardianships",
    status: 200,
    cost: reads(1),
    call: (g) =>
      g.admin.api.guardians.accessOf({ params: { tenantId: g.tenantId, userId: g.guardian.userId } }),
  },
  {
    route: 'guardians.listWards',
    name: 'caller with its wards',
    status: 200,
    cost: reads(1),
    call: (g) => g.guardian.api.guardians.listWards(),
  },
  {
    route: 'guardians.listMyGuardians',
    name: 'caller with its guardians',
    status: 200,
    cost: reads(1),
    call: (g) => g.student.api.guardians.listMyGuardians(),
  },
  {
    route: 'guardians.redeem',
    name: "caller; then the code's tenant, lock, caller, the code, the student, the pair's link, the count, use, insert, audit event",
    status: 201,
    cost: writes(11),
    call: (g) => g.newcomer.api.guardians.redeem({ body: { code: g.code, relationship: 'RELATIVE' } }),
  },
  {
    route: 'guardians.removeLink',
    name: 'lock, caller with its role, the link, revoke, audit event',
    status: 200,
    cost: writes(5),
    call: (g) =>
      g.guardian.api.guardians.removeLink({
        params: { tenantId: g.tenantId, guardianLinkId: g.guardianLinkId },
      }),
  },
];
