import type {
  GuardianLink,
  MyGuardian,
  PairingCode,
  RedeemPairingCodeBody,
  SchoolGuardianLink,
  TenantAccessSummary,
  Ward,
} from '@tms/contract';
import { encodeCursor } from '../pagination/cursor.js';
import { ALAN, type Examples, GREEN_VALLEY, ok } from './examples.js';

/*
 * The examples of the guardian routes (issue 29), in the story of examples.ts: Alan is a student
 * at Green Valley; his mother Marie redeems the pairing code his teacher made, and sees him among
 * her wards.
 */

// UUIDv7s whose timestamps match the createdAt next to them.
const MARIE = { userId: '0195f3a1-0c2e-7a41-9b0d-3c6f1e2a4b5c', email: 'marie@family.example' };
const MARIE_LINK = '0195f3a4-7d10-7c22-8a31-5e9b0f4c2d18';
const PAIRING_CODE_ID = '0195f39e-41b8-7e05-b6a2-1d8c4f7e9a03';

const marieLink: GuardianLink = {
  guardianLinkId: MARIE_LINK,
  tenantId: GREEN_VALLEY,
  studentUserId: ALAN.userId,
  guardianUserId: MARIE.userId,
  relationship: 'PARENT',
  status: 'ACTIVE',
  source: 'PAIRING_CODE',
  createdAt: '2025-04-03T17:52:11.024Z',
  revokedAt: null,
};
const revokedLink: GuardianLink = {
  ...marieLink,
  status: 'REVOKED',
  revokedAt: '2025-06-30T08:00:00.000Z',
};
const asAdminSees: SchoolGuardianLink = {
  ...marieLink,
  guardianDisplayName: 'Marie Turing',
  guardianEmail: MARIE.email,
};
const asTeacherSees: SchoolGuardianLink = { ...asAdminSees, guardianEmail: null };

const pairingCode: PairingCode = {
  pairingCodeId: PAIRING_CODE_ID,
  tenantId: GREEN_VALLEY,
  studentUserId: ALAN.userId,
  code: 'KX7M4RTA',
  expiresAt: '2025-04-10T17:40:02.881Z',
  createdAt: '2025-04-03T17:40:02.881Z',
};

const ward: Ward = {
  guardianLinkId: MARIE_LINK,
  tenantId: GREEN_VALLEY,
  tenantSlug: 'green-valley',
  tenantName: 'Green Valley School',
  studentUserId: ALAN.userId,
  studentDisplayName: 'Alan',
  relationship: 'PARENT',
  membershipStatus: 'ACTIVE',
  createdAt: marieLink.createdAt,
};

const myGuardian: MyGuardian = {
  guardianLinkId: MARIE_LINK,
  tenantId: GREEN_VALLEY,
  guardianUserId: MARIE.userId,
  guardianDisplayName: 'Marie Turing',
  relationship: 'PARENT',
  source: 'PAIRING_CODE',
  createdAt: marieLink.createdAt,
};

const marieAccess: TenantAccessSummary = {
  tenantId: GREEN_VALLEY,
  userId: MARIE.userId,
  role: null,
  roleLevel: null,
  status: null,
  guardianOf: [ALAN.userId],
};

const one = <T>(summary: string, value: T) => ({ one: { summary, value: ok(value) } });
const page = <T>(data: T[], nextCursor: string | null) => ({
  success: true as const,
  data,
  meta: { nextCursor },
});

export const GUARDIAN_REQUEST_EXAMPLES = {
  redeemPairingCode: {
    parent: {
      summary: 'A parent types the code the school gave',
      value: { code: 'kx7m-4rta', relationship: 'PARENT' },
    },
  } satisfies Examples<RedeemPairingCodeBody>,
};

/** Success response examples of the guardian routes, by operationId and status. */
export const GUARDIAN_RESPONSE_EXAMPLES = {
  createPairingCode: { 201: one('Shown once: only its hash is kept', pairingCode) },
  listStudentGuardians: {
    200: {
      admin: { summary: 'As an ADMIN sees them: with addresses', value: ok([asAdminSees]) },
      teacher: { summary: 'As a TEACHER sees them: names only', value: ok([asTeacherSees]) },
    },
  },
  listGuardianLinks: {
    200: {
      all: { summary: "The tenant's links, oldest first", value: page([asAdminSees], null) },
      more: {
        summary: 'A page with more after it (`limit=1`)',
        value: page([asTeacherSees], encodeCursor(MARIE_LINK)),
      },
    },
  },
  revokeGuardianLink: { 200: one('Revoked: kept, with `revokedAt`', revokedLink) },
  getTenantAccess: { 200: one('A guardian: no role here, the guardian of one student', marieAccess) },
  redeemPairingCode: { 201: one('Linked: an ACTIVE guardian of the student', marieLink) },
  listMyWards: { 200: one("A parent's one child", [ward]) },
  listMyGuardians: { 200: one("A student's guardians", [myGuardian]) },
};
