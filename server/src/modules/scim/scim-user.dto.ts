import { SCIM_SCHEMA, type ScimUser } from '@tms/contract';
import { etagOf } from '../shared/if-match.js';
import type { UserInput } from './scim-user-input.js';
import type { ScimName, ScimUserRow, UserGroup } from './scim-users.repository.js';

/**
 * The name parts of someone the directory did not make (added by hand): read from their display
 * name, first word and the rest, since directories (Okta) expect both parts of every listed user.
 * Only what the directory sent itself is given back as sent.
 */
function namePartsOf(displayName: string | undefined): ScimName {
  const words = displayName?.trim().split(/\s+/) ?? [];
  if (words.length < 2) return {};
  return { givenName: words[0] as string, familyName: words.slice(1).join(' ') };
}

/** A membership as SCIM shows it: `userName` is the address as given, `active` its status now. */
export function toScimUser(row: ScimUserRow, groups: UserGroup[], baseUrl: string): ScimUser {
  const displayName = row.user.displayName ?? row.invitedDisplayName ?? undefined;
  const name = row.scimName ?? namePartsOf(displayName);
  return {
    schemas: [SCIM_SCHEMA.user],
    id: row.id,
    ...(row.externalId !== null && { externalId: row.externalId }),
    userName: row.user.email ?? '',
    name: { ...name, ...(name.formatted === undefined && displayName && { formatted: displayName }) },
    ...(displayName && { displayName }),
    emails: row.user.email ? [{ value: row.user.email, type: 'work', primary: true }] : [],
    active: row.status === 'ACTIVE',
    groups: groups.map((group) => ({ value: group.groupId, display: group.displayName })),
    meta: {
      resourceType: 'User',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${baseUrl}/Users/${row.id}`,
      version: etagOf(row.version),
    },
  };
}

/** The user as a PATCH starts from: what the directory sent last, as this service keeps it. */
export function userInputOf(row: ScimUserRow): UserInput {
  return {
    userName: row.user.email ?? undefined,
    email: row.user.email ?? undefined,
    externalId: row.externalId,
    active: row.status === 'ACTIVE',
    displayName: row.invitedDisplayName ?? row.user.displayName,
    name: row.scimName,
  };
}
