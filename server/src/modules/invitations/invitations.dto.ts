import { type Invitation, type MyInvitation, ROLE_LEVEL } from '@tms/contract';
import type { InvitationView, MyInvitationView } from './invitations.repository.js';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export const toInvitationDto = (row: InvitationView): Invitation => ({
  invitationId: row.id,
  tenantId: row.tenantId,
  email: row.email,
  displayName: row.displayName,
  role: row.role,
  roleLevel: ROLE_LEVEL[row.role],
  status: row.status,
  expiresAt: row.expiresAt.toISOString(),
  invitedByUserId: row.invitedByUserId,
  acceptedAt: iso(row.acceptedAt),
  acceptedUserId: row.acceptedUserId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toMyInvitationDto = (row: MyInvitationView): MyInvitation => ({
  ...toInvitationDto(row),
  tenantSlug: row.tenantSlug,
  tenantName: row.tenantName,
});
