import { ROLE_LEVEL, type Role } from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import { LastOwnerError, RoleHierarchyViolationError } from '../../errors/index.js';
import type { Before } from './membership-target.sql.js';
import type { MembershipWithUser } from './memberships.repository.js';

/** Nobody hands out, or acts on, a role above their own: an ADMIN cannot make or unmake an OWNER. */
export function assertWithinLevel(access: TenantAccess, role: Role, message: string): void {
  if (ROLE_LEVEL[role] > access.level) throw new RoleHierarchyViolationError(message);
}

const isActiveOwner = (m: Pick<MembershipWithUser, 'role' | 'status'>) =>
  m.role === 'OWNER' && m.status === 'ACTIVE';

/**
 * A tenant without an ACTIVE OWNER could never be administered again by its own people: a
 * suspended OWNER has no access either. So the last ACTIVE OWNER may not be demoted, suspended,
 * given an end or a later start, nor removed (`after` undefined). Every writer holds the tenant's
 * row lock (see lockTenantForWrite), so the count cannot go stale before commit, whichever process
 * the racing request reached.
 */
export function assertNotLastOwner(before: Before, after: MembershipWithUser | undefined): void {
  if (!isActiveOwner(before) || (after && isActiveOwner(after))) return;
  if ((before.owners ?? 0) <= 1) throw new LastOwnerError();
}
