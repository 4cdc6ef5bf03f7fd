import type {
  CreateGuardianInvitationBody,
  GuardianInvitation,
  GuardianLink,
  MyGuardianInvitation,
} from '@tms/contract';
import { encodeCursor } from '../pagination/cursor.js';
import { ALAN, type Examples, GRACE, GREEN_VALLEY, ok } from './examples.js';

/*
 * The examples of the guardian invitation routes (issue 29), in the story of examples.ts: Grace,
 * Alan's teacher, invites his father Pierre by email; Pierre accepts under that address.
 */

// UUIDv7s whose timestamps match the createdAt next to them.
const PIERRE = { userId: '0195f3b2-5e61-7d09-a4c8-2b7e9f1d3c60', email: 'pierre@family.example' };
const INVITATION_ID = '0195f3a8-16c0-7b3e-9d52-8e4a1c7f0b29';
const PIERRE_LINK = '0195f3b6-0a9d-7f18-b3e4-6c2d8a5e1f07';

const pending: GuardianInvitation = {
  guardianInvitationId: INVITATION_ID,
  tenantId: GREEN_VALLEY,
  studentUserId: ALAN.userId,
  email: PIERRE.email,
  relationship: 'PARENT',
  status: 'PENDING',
  source: 'API',
  expiresAt: '2025-04-17T18:05:44.000Z',
  createdAt: '2025-04-03T18:05:44.000Z',
  createdBy: GRACE.userId,
  answeredAt: null,
  guardianUserId: null,
  updatedAt: '2025-04-03T18:05:44.000Z',
};
const asTeacherSees: GuardianInvitation = { ...pending, email: null };
const accepted: GuardianInvitation = {
  ...pending,
  status: 'ACCEPTED',
  answeredAt: '2025-04-03T18:22:10.000Z',
  guardianUserId: PIERRE.userId,
  updatedAt: '2025-04-03T18:22:10.000Z',
};
const revoked: GuardianInvitation = {
  ...asTeacherSees,
  status: 'REVOKED',
  answeredAt: '2025-04-04T07:30:00.000Z',
  updatedAt: '2025-04-04T07:30:00.000Z',
};
const declined: GuardianInvitation = {
  ...pending,
  status: 'DECLINED',
  answeredAt: '2025-04-03T19:00:00.000Z',
  updatedAt: '2025-04-03T19:00:00.000Z',
};
const mine: MyGuardianInvitation = {
  ...pending,
  tenantSlug: 'green-valley',
  tenantName: 'Green Valley School',
  studentDisplayName: 'Alan',
};
const pierreLink: GuardianLink = {
  guardianLinkId: PIERRE_LINK,
  tenantId: GREEN_VALLEY,
  studentUserId: ALAN.userId,
  guardianUserId: PIERRE.userId,
  relationship: 'PARENT',
  status: 'ACTIVE',
  source: 'INVITATION',
  createdAt: '2025-04-03T18:22:10.000Z',
  revokedAt: null,
};

const one = <T>(summary: string, value: T) => ({ one: { summary, value: ok(value) } });
const page = <T>(data: T[], nextCursor: string | null) => ({
  success: true as const,
  data,
  meta: { nextCursor },
});

export const GUARDIAN_INVITATION_REQUEST_EXAMPLES = {
  createGuardianInvitation: {
    parent: {
      summary: "A teacher invites a student's father",
      value: { email: PIERRE.email, relationship: 'PARENT' },
    },
  } satisfies Examples<CreateGuardianInvitationBody>,
};

/** Success response examples of the guardian invitation routes, by operationId and status. */
export const GUARDIAN_INVITATION_RESPONSE_EXAMPLES = {
  createGuardianInvitation: { 201: one('PENDING for 14 days', pending) },
  listGuardianInvitations: {
    200: {
      admin: { summary: 'As an ADMIN sees them: with addresses', value: page([accepted], null) },
      teacher: {
        summary: 'As a TEACHER sees them (`limit=1`): no addresses',
        value: page([asTeacherSees], encodeCursor(INVITATION_ID)),
      },
    },
  },
  revokeGuardianInvitation: { 200: one('Withdrawn, as a TEACHER sees it', revoked) },
  listMyGuardianInvitations: { 200: one('A father asked to be the guardian of Alan', [mine]) },
  acceptGuardianInvitation: { 201: one('Linked: an ACTIVE guardian of the student', pierreLink) },
  declineGuardianInvitation: { 200: one('Declined', declined) },
};
