import type { ScimGroupRole, ScimGroupSummary } from '@tms/contract';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import { ScimGroupNotFoundError } from '../../errors/index.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { syncDirectoryRoles } from './directory-roles.js';
import { toScimGroupSummary } from './scim-group.dto.js';
import {
  countGroupMembers,
  findGroup,
  findMemberUserIds,
  listGroupSummariesAs,
  updateGroup,
} from './scim-groups.repository.js';

/*
 * Which role a directory's group gives: the tenant's OWNERs and ADMINs decide it, never the
 * directory. A change gives the group's directory-managed members their new role at once, in the
 * same transaction (under the tenant's lock), each with its event.
 */

export async function listScimGroups(db: Database, requester: Requester): Promise<ScimGroupSummary[]> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a tenant route without a tenant');
  const { items } = await readAsCaller(db, requester, (subject) =>
    listGroupSummariesAs(db, subject, tenantId),
  );
  return items.map((row) => toScimGroupSummary(row, row.memberCount));
}

export async function mapGroupRole(
  { tx, access, audit }: TenantWrite,
  groupId: string,
  role: ScimGroupRole | null,
): Promise<ScimGroupSummary> {
  const before = await findGroup(tx, access.tenantId, groupId);
  if (!before) throw new ScimGroupNotFoundError(groupId);
  const count = await countGroupMembers(tx, access.tenantId, groupId);
  if (before.role === role) return toScimGroupSummary(before, count);
  const after = await updateGroup(tx, access.tenantId, groupId, {
    displayName: before.displayName,
    externalId: before.externalId,
    role,
  });
  await syncDirectoryRoles(tx, access.tenantId, audit, await findMemberUserIds(tx, groupId));
  await recordAuditEvent(tx, {
    tenantId: access.tenantId,
    action: 'scim_group.role_mapped',
    target: { type: 'scim_group', id: groupId },
    before: toScimGroupSummary(before, count),
    after: toScimGroupSummary(after, count),
    context: audit,
  });
  return toScimGroupSummary(after, count);
}
