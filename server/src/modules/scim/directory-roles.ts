import type { Executor } from '../../db/database.js';
import { roleFromGroups } from '../../rules/directory-rules.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordMembershipEvent } from '../memberships/membership-events.js';
import { setTerm } from '../memberships/membership-updates.repository.js';
import { findManagedMemberships, findRolesFromGroups } from './scim-users.repository.js';

/**
 * Gives these people's directory-managed memberships the role their groups now give
 * (rules/directory-rules.ts: roleFromGroups), each change with its event, in the caller's
 * transaction (which holds the tenant's lock). Called after every change of groups, of their
 * members, and of the role a group gives.
 */
export async function syncDirectoryRoles(
  tx: Executor,
  tenantId: string,
  audit: AuditContext,
  userIds: string[],
): Promise<void> {
  const managed = await findManagedMemberships(tx, tenantId, userIds);
  if (managed.length === 0) return;
  const roles = await findRolesFromGroups(
    tx,
    tenantId,
    managed.map((membership) => membership.userId),
  );
  for (const before of managed) {
    const role = roleFromGroups(before.role, roles.get(before.userId));
    if (role === before.role) continue;
    const changed = await setTerm(tx, tenantId, before.id, {
      role,
      startsAt: before.startsAt,
      endsAt: before.endsAt,
    });
    if (!changed) throw new Error('a membership changed under the tenant lock vanished');
    await recordMembershipEvent(tx, audit, 'membership.role_changed', before, {
      ...changed,
      user: before.user,
    });
  }
}
