import type {
  ApproveJoinRequestBody,
  CreateJoinCodeBody,
  JoinBody,
  JoinCode,
  JoinPreview,
  JoinRequest,
  Membership,
  MyJoinRequest,
} from '@tms/contract';
import { encodeCursor } from '../pagination/cursor.js';
import { ADA, ALAN, alanStudent, type Examples, GRACE, GREEN_VALLEY, greenValley, ok } from './examples.js';

/*
 * The examples of joining without an invitation (issue 28), in the same story: Grace Hopper, a
 * TEACHER of Green Valley, writes a code on the board; Alan Turing types it.
 */

const boardCode: JoinCode = {
  joinCodeId: '019acb10-4e2f-7a31-9c5d-2b3c4d5e6f01',
  tenantId: GREEN_VALLEY,
  code: 'K7QM-W4XN',
  role: 'STUDENT',
  expiresAt: '2025-09-15T08:00:00.000Z',
  maxUses: 30,
  uses: 0,
  requiresApproval: false,
  status: 'ACTIVE',
  createdAt: '2025-09-01T08:00:00.000Z',
  createdBy: GRACE.userId,
};
const rotated: JoinCode = { ...boardCode, code: 'PX3T-HB9R', uses: 12 };
const gatedCode: JoinCode = {
  ...boardCode,
  joinCodeId: '019acb10-4e2f-7a31-9c5d-2b3c4d5e6f02',
  code: 'TR8C-YD6A',
  maxUses: null,
  requiresApproval: true,
  createdBy: ADA.userId,
};

const alanAsks: JoinRequest = {
  joinRequestId: '019acb10-4e2f-7a31-9c5d-2b3c4d5e6f10',
  tenantId: GREEN_VALLEY,
  userId: ALAN.userId,
  email: ALAN.email,
  displayName: 'Alan Turing',
  joinCodeId: gatedCode.joinCodeId,
  domainId: null,
  role: 'STUDENT',
  status: 'PENDING',
  expiresAt: '2025-10-01T08:05:00.000Z',
  decidedBy: null,
  decidedAt: null,
  createdAt: '2025-09-01T08:05:00.000Z',
};
const decided = (status: JoinRequest['status']): JoinRequest => ({
  ...alanAsks,
  status,
  decidedBy: status === 'CANCELLED' ? ALAN.userId : GRACE.userId,
  decidedAt: '2025-09-01T09:00:00.000Z',
});
const alanMine: MyJoinRequest = { ...alanAsks, tenantSlug: greenValley.slug, tenantName: greenValley.name };
const alanJoined: Membership = { ...alanStudent, version: 1 };

const single = <T>(summary: string, value: T) => ({ one: { summary, value: ok(value) } });

export const JOINING_REQUEST_EXAMPLES = {
  createJoinCode: {
    board: { summary: 'A STUDENT code for a class of 30, for 14 days', value: { maxUses: 30 } },
    approval: {
      summary: 'A code whose redemptions an ADMIN (or TEACHER) approves',
      value: { role: 'STUDENT', requiresApproval: true, expiresAt: '2025-11-30T00:00:00.000Z' },
    },
  } satisfies Examples<CreateJoinCodeBody>,
  joinWithCode: {
    typed: { summary: 'As typed from the board (any case, dash or not)', value: { code: 'k7qm-w4xn' } },
  } satisfies Examples<JoinBody>,
  approveJoinRequest: {
    asAsked: { summary: "With the request's role", value: {} },
    lower: { summary: 'With a lower role than asked', value: { role: 'STUDENT' } },
  } satisfies Examples<ApproveJoinRequestBody>,
};

const preview: JoinPreview = {
  tenantName: greenValley.name,
  tenantSlug: greenValley.slug,
  role: 'STUDENT',
  outcome: 'joinable',
};

export const JOINING_RESPONSE_EXAMPLES = {
  createJoinCode: { 201: single('A new code, to write on the board', boardCode) },
  listJoinCodes: {
    200: {
      all: {
        summary: 'The codes the caller may manage',
        value: { ...ok([boardCode, gatedCode]), meta: { nextCursor: null } },
      },
      more: {
        summary: 'A page with more after it (`limit=1`)',
        value: { ...ok([boardCode]), meta: { nextCursor: encodeCursor(boardCode.joinCodeId) } },
      },
    },
  },
  rotateJoinCode: { 200: single('New characters; the old ones no longer work', rotated) },
  joinWithCode: {
    200: single('Already an ACTIVE member: nothing changed', alanJoined),
    201: single('Joined: the new membership, ACTIVE', alanJoined),
    202: single('The code requires approval: a pending request', alanAsks),
  },
  previewJoinCode: {
    200: {
      joinable: { summary: 'The code would make the caller a member', value: ok(preview) },
      member: {
        summary: 'The caller is a member already',
        value: ok({ ...preview, outcome: 'already_member' }),
      },
    },
  },
  listJoinRequests: {
    200: {
      pending: {
        summary: 'The pending ones (`status=PENDING`)',
        value: { ...ok([alanAsks]), meta: { nextCursor: null } },
      },
    },
  },
  approveJoinRequest: { 201: single('Approved: the new membership', alanJoined) },
  rejectJoinRequest: { 200: single('Rejected: the person may ask again', decided('REJECTED')) },
  blockJoinRequest: { 200: single('Blocked: no code lets the person in any more', decided('BLOCKED')) },
  listMyJoinRequests: { 200: { mine: { summary: "The caller's join requests", value: ok([alanMine]) } } },
  cancelMyJoinRequest: { 200: single('Cancelled by the person', decided('CANCELLED')) },
};
