import type {
  GuardianLink,
  MyGuardian,
  PairingCode,
  PairingCodeSummary,
  SchoolGuardianLink,
  Ward,
} from '@tms/contract';
import { TENANT_ADMIN_LEVEL } from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import type { GuardianLinkRow, PairingCodeRow } from '../../db/schema.js';
import type { MyGuardianView, SchoolLinkView, WardView } from './guardian-reads.repository.js';

export const toGuardianLinkDto = (row: GuardianLinkRow): GuardianLink => ({
  guardianLinkId: row.id,
  tenantId: row.tenantId,
  studentUserId: row.studentUserId,
  guardianUserId: row.guardianUserId,
  relationship: row.relationship,
  status: row.status,
  source: row.source,
  createdAt: row.createdAt.toISOString(),
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

/**
 * A guardian's address is personal data the school needs only to reach them: its ADMINs (who
 * manage links) see it, its TEACHERs see who the guardian is by name alone.
 */
export const toSchoolLinkDto = (row: SchoolLinkView, access: TenantAccess): SchoolGuardianLink => ({
  ...toGuardianLinkDto(row),
  guardianDisplayName: row.guardianDisplayName,
  guardianEmail: access.level >= TENANT_ADMIN_LEVEL ? row.guardianEmail : null,
});

export const toWardDto = (row: WardView): Ward => ({
  guardianLinkId: row.id,
  tenantId: row.tenantId,
  tenantSlug: row.tenantSlug,
  tenantName: row.tenantName,
  studentUserId: row.studentUserId,
  studentDisplayName: row.studentDisplayName,
  relationship: row.relationship,
  membershipStatus: row.membershipStatus,
  createdAt: row.createdAt.toISOString(),
});

export const toMyGuardianDto = (row: MyGuardianView): MyGuardian => ({
  guardianLinkId: row.id,
  tenantId: row.tenantId,
  guardianUserId: row.guardianUserId,
  guardianDisplayName: row.guardianDisplayName,
  relationship: row.relationship,
  source: row.source,
  createdAt: row.createdAt.toISOString(),
});

export const toPairingCodeSummary = (row: PairingCodeRow): PairingCodeSummary => ({
  pairingCodeId: row.id,
  tenantId: row.tenantId,
  studentUserId: row.studentUserId,
  expiresAt: row.expiresAt.toISOString(),
  createdAt: row.createdAt.toISOString(),
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

/** The code itself, shown once: to whoever made it, in the answer to its creation. */
export const toPairingCodeDto = (row: PairingCodeRow, code: string): PairingCode => ({
  pairingCodeId: row.id,
  tenantId: row.tenantId,
  studentUserId: row.studentUserId,
  code,
  expiresAt: row.expiresAt.toISOString(),
  createdAt: row.createdAt.toISOString(),
});
