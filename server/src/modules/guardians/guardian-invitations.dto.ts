import { type GuardianInvitation, type MyGuardianInvitation, TENANT_ADMIN_LEVEL } from '@tms/contract';
import type { MyGuardianInvitationView } from './guardian-invitation-reads.repository.js';
import type { GuardianInvitationView } from './guardian-invitations.repository.js';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** The invitation with its address: for its invitee, an ADMIN and above, the audit trail. */
export const toGuardianInvitationDto = (row: GuardianInvitationView): GuardianInvitation => ({
  guardianInvitationId: row.id,
  tenantId: row.tenantId,
  studentUserId: row.studentUserId,
  email: row.email,
  relationship: row.relationship,
  status: row.status,
  source: row.source,
  expiresAt: row.expiresAt.toISOString(),
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdByUserId,
  answeredAt: iso(row.answeredAt),
  guardianUserId: row.guardianUserId,
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * As the school's lists and answers show it: the address, like a linked guardian's, is for the
 * ADMINs and above, who reach families; a TEACHER sees whose guardian is invited, and how it stands.
 */
export const toSchoolGuardianInvitationDto = (
  row: GuardianInvitationView,
  access: { level: number },
): GuardianInvitation => ({
  ...toGuardianInvitationDto(row),
  email: access.level >= TENANT_ADMIN_LEVEL ? row.email : null,
});

export const toMyGuardianInvitationDto = (row: MyGuardianInvitationView): MyGuardianInvitation => ({
  ...toGuardianInvitationDto(row),
  tenantSlug: row.tenantSlug,
  tenantName: row.tenantName,
  studentDisplayName: row.studentDisplayName,
});
