import { type Membership, ROLE_LEVEL } from '@tms/contract';
import type { MembershipWithUser } from './memberships.repository.js';

export const toMembershipDto = (row: MembershipWithUser): Membership => ({
  tenantMembershipId: row.id,
  tenantId: row.tenantId,
  userId: row.userId,
  role: row.role,
  roleLevel: ROLE_LEVEL[row.role],
  status: row.status,
  startsAt: row.startsAt?.toISOString() ?? null,
  endsAt: row.endsAt?.toISOString() ?? null,
  suspendedAt: row.suspendedAt?.toISOString() ?? null,
  suspensionReason: row.suspensionReason,
  version: row.version,
  managedBy: row.managedBy === 'scim' ? 'scim' : null,
  user: {
    userId: row.userId,
    email: row.user.email,
    // The person's own name once known; until then the name this tenant gave when inviting.
    displayName: row.user.displayName ?? row.invitedDisplayName,
  },
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
