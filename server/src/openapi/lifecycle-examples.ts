import type {
  CreateInvitationBody,
  CreateOwnershipTransferBody,
  Invitation,
  Membership,
  MyInvitation,
  OwnershipTransfer,
  SuspendMembershipBody,
  UpdateMembershipBody,
} from '@tms/contract';
import { encodeCursor } from '../pagination/cursor.js';
import {
  ADA,
  ALAN,
  adaOwner,
  alanStudent,
  type Examples,
  GRACE,
  GREEN_VALLEY,
  graceAdmin,
  graceTeacher,
  greenValley,
  ok,
} from './examples.js';

/*
 * The examples of the lifecycle routes (issue 13), in the same story as examples.ts: Ada Head
 * invites Grace Hopper, suspends Alan Turing for a term, and offers Green Valley to Grace.
 */

const graceInvited: Invitation = {
  invitationId: '0195609a-1c20-7a4e-9d3b-6f0e2a7c5b11',
  tenantId: GREEN_VALLEY,
  email: GRACE.email,
  displayName: 'Grace Hopper',
  role: 'TEACHER',
  roleLevel: 20,
  status: 'PENDING',
  expiresAt: '2025-03-11T09:58:12.512Z',
  invitedByUserId: ADA.userId,
  acceptedAt: null,
  acceptedUserId: null,
  createdAt: '2025-03-04T09:58:12.512Z',
  updatedAt: '2025-03-04T09:58:12.512Z',
};
const graceAccepted: Invitation = {
  ...graceInvited,
  status: 'ACCEPTED',
  acceptedAt: '2025-03-04T10:02:41.904Z',
  acceptedUserId: GRACE.userId,
  updatedAt: '2025-03-04T10:02:41.904Z',
};
const graceResent: Invitation = {
  ...graceInvited,
  expiresAt: '2025-03-12T08:30:00.000Z',
  updatedAt: '2025-03-05T08:30:00.000Z',
};
const graceRevoked: Invitation = {
  ...graceInvited,
  status: 'REVOKED',
  updatedAt: '2025-03-05T08:31:00.000Z',
};
const graceDeclined: Invitation = {
  ...graceInvited,
  status: 'DECLINED',
  updatedAt: '2025-03-04T10:01:00.000Z',
};
const graceMine: MyInvitation = {
  ...graceInvited,
  tenantSlug: greenValley.slug,
  tenantName: greenValley.name,
};

const alanSuspended: Membership = {
  ...alanStudent,
  status: 'SUSPENDED',
  suspendedAt: '2025-03-12T13:20:05.441Z',
  suspensionReason: 'Fees unpaid for the spring term',
  version: 2,
  updatedAt: '2025-03-12T13:20:05.441Z',
};
const alanReactivated: Membership = { ...alanStudent, version: 3, updatedAt: '2025-03-19T08:00:00.000Z' };
const graceForTheTerm: Membership = {
  ...graceAdmin,
  startsAt: '2025-09-01T00:00:00.000Z',
  endsAt: '2026-07-31T00:00:00.000Z',
  status: 'SCHEDULED',
  version: 3,
  updatedAt: '2025-03-20T09:00:00.000Z',
};

const offered: OwnershipTransfer = {
  transferId: '0195a3c4-7d10-7b2e-8f41-3c5d6e7f8a90',
  tenantId: GREEN_VALLEY,
  fromMembershipId: adaOwner.tenantMembershipId,
  toMembershipId: graceTeacher.tenantMembershipId,
  status: 'PENDING',
  expiresAt: '2025-03-23T10:00:00.000Z',
  createdAt: '2025-03-20T10:00:00.000Z',
  updatedAt: '2025-03-20T10:00:00.000Z',
};
const at = (status: OwnershipTransfer['status'], updatedAt: string): OwnershipTransfer => ({
  ...offered,
  status,
  updatedAt,
});

/** Request body examples of the lifecycle routes, by operationId. */
export const LIFECYCLE_REQUEST_EXAMPLES = {
  createInvitation: {
    teacher: {
      summary: 'Invite a teacher for a week',
      value: { email: GRACE.email, role: 'TEACHER', displayName: 'Grace Hopper' },
    },
    longer: {
      summary: 'Invite a student, valid for 30 days',
      value: { email: ALAN.email, role: 'STUDENT', expiresInDays: 30 },
    },
  } satisfies Examples<CreateInvitationBody>,
  suspendMembership: {
    withReason: { summary: 'Suspend, saying why', value: { reason: 'Fees unpaid for the spring term' } },
  } satisfies Examples<SuspendMembershipBody>,
  createOwnershipTransfer: {
    toGrace: {
      summary: 'Offer the tenant to a member',
      value: { toMembershipId: graceTeacher.tenantMembershipId },
    },
  } satisfies Examples<CreateOwnershipTransferBody>,
  updateMembership: {
    term: {
      summary: 'Give a membership term dates',
      value: { startsAt: '2025-09-01T00:00:00.000Z', endsAt: '2026-07-31T00:00:00.000Z' },
    },
  } satisfies Examples<UpdateMembershipBody>,
};

const single = <T>(summary: string, value: T) => ({ one: { summary, value: ok(value) } });

/** Success response examples of the lifecycle routes, by operationId and status. */
export const LIFECYCLE_RESPONSE_EXAMPLES = {
  suspendMembership: { 200: single('Suspended: no access until reactivated', alanSuspended) },
  reactivateMembership: { 200: single('ACTIVE again, with its role', alanReactivated) },
  createInvitation: { 201: single('A pending invitation, a week to answer', graceInvited) },
  listInvitations: {
    200: {
      pending: {
        summary: 'The pending ones (`status=PENDING`)',
        value: { success: true as const, data: [graceInvited], meta: { nextCursor: null } },
      },
      more: {
        summary: 'A page with more after it (`limit=1`)',
        value: {
          success: true as const,
          data: [graceAccepted],
          meta: { nextCursor: encodeCursor(graceAccepted.invitationId) },
        },
      },
    },
  },
  getInvitation: { 200: single('An accepted invitation', graceAccepted) },
  resendInvitation: { 200: single('Pending again, a week from now', graceResent) },
  revokeInvitation: { 200: single('Revoked: it can no longer be accepted', graceRevoked) },
  listMyInvitations: {
    200: { mine: { summary: "The caller's pending invitations", value: ok([graceMine]) } },
  },
  acceptInvitation: { 201: single('The new membership, ACTIVE', graceTeacher) },
  declineInvitation: { 200: single('Declined', graceDeclined) },
  createOwnershipTransfer: { 201: single('Offered: three days to accept', offered) },
  getOwnershipTransfer: { 200: single('A pending transfer', offered) },
  cancelOwnershipTransfer: {
    200: single('Cancelled by an OWNER', at('CANCELLED', '2025-03-21T08:00:00.000Z')),
  },
  listMyOwnershipTransfers: {
    200: { mine: { summary: 'The transfers offered to the caller', value: ok([offered]) } },
  },
  acceptOwnershipTransfer: {
    200: single(
      'Accepted: the nominee is OWNER, the initiator ADMIN',
      at('ACCEPTED', '2025-03-21T09:00:00.000Z'),
    ),
  },
  declineOwnershipTransfer: { 200: single('Declined', at('DECLINED', '2025-03-21T09:00:00.000Z')) },
  updateMembership: {
    200: { dated: { summary: 'Dated: SCHEDULED until its start', value: ok(graceForTheTerm) } },
  },
};
