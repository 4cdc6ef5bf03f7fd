import { SCIM_SCHEMA, type ScimGroup, type ScimGroupSummary } from '@tms/contract';
import { etagOf } from '../shared/if-match.js';
import type { GroupMember, GroupRow } from './scim-groups.repository.js';

export function toScimGroup(row: GroupRow, members: GroupMember[] | undefined, baseUrl: string): ScimGroup {
  return {
    schemas: [SCIM_SCHEMA.group],
    id: row.id,
    ...(row.externalId !== null && { externalId: row.externalId }),
    displayName: row.displayName,
    members: (members ?? []).map((member) => ({
      value: member.membershipId,
      ...(member.display !== null && { display: member.display }),
      $ref: `${baseUrl}/Users/${member.membershipId}`,
    })),
    meta: {
      resourceType: 'Group',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${baseUrl}/Groups/${row.id}`,
      version: etagOf(row.version),
    },
  };
}

/** A group as the tenant's admins see it (GET …/scim-groups), and as its events record it. */
export const toScimGroupSummary = (row: GroupRow, memberCount: number): ScimGroupSummary => ({
  groupId: row.id,
  displayName: row.displayName,
  externalId: row.externalId,
  memberCount,
  role: row.role === 'OWNER' ? null : row.role,
});
