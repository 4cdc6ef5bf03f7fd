import type { Role } from '@tms/contract';
import { and, asc, count, eq, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { scimGroupMembers, scimGroups, tenantMemberships, users } from '../../db/schema.js';
import { isActive, statusOf } from '../../rules/membership-status.sql.js';
import type { Changed } from '../memberships/membership-updates.repository.js';
import {
  type MembershipWithUser,
  membershipColumns,
  withUser,
} from '../memberships/memberships.repository.js';
import type { Attributes } from './scim-filter.sql.js';

/*
 * The directory's view of a tenant's memberships (SCIM Users): every membership, those added by
 * hand too, so that a directory's look-up by userName finds a person already there.
 */

export type ScimName = { givenName?: string; familyName?: string; formatted?: string };
export type ScimUserRow = MembershipWithUser & { scimName: ScimName | null };

const m = tenantMemberships;

/** What a filter on Users may name, and how each compares (scim-filter.sql.ts). */
export const USER_ATTRIBUTES: Attributes = {
  id: { column: sql`${m.id}`, kind: 'uuid' },
  username: { column: sql`${users.emailCanonical}`, shown: sql`${users.email}`, kind: 'email' },
  'emails.value': { column: sql`${users.emailCanonical}`, shown: sql`${users.email}`, kind: 'email' },
  emails: { column: sql`${users.emailCanonical}`, shown: sql`${users.email}`, kind: 'email' },
  // The one address each User shows is its primary, work address.
  'emails.type': { column: sql`'work'::text`, kind: 'text' },
  'emails.primary': { column: sql`true`, kind: 'boolean' },
  externalid: { column: sql`${m.externalId}`, kind: 'exactText' },
  displayname: { column: sql`coalesce(${users.displayName}, ${m.invitedDisplayName})`, kind: 'text' },
  'name.givenname': { column: sql`(${m.scimName} ->> 'givenName')`, kind: 'text' },
  'name.familyname': { column: sql`(${m.scimName} ->> 'familyName')`, kind: 'text' },
  'name.formatted': { column: sql`(${m.scimName} ->> 'formatted')`, kind: 'text' },
  active: { column: isActive(), kind: 'boolean' },
  'meta.created': { column: sql`${m.createdAt}`, kind: 'date' },
  'meta.lastmodified': { column: sql`${m.updatedAt}`, kind: 'date' },
};

const userColumns = { ...withUser, scimName: m.scimName };

/**
 * A page of the tenant's memberships in creation order (the UUIDv7 id: stable across pages, as
 * SCIM's index paging needs), and how many match. Built per request: the filter is the caller's.
 */
export async function listScimUsers(
  db: Executor,
  tenantId: string,
  where: SQL | undefined,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: ScimUserRow[] }> {
  const condition = and(eq(m.tenantId, tenantId), where);
  const [counted] = await db
    .select({ total: count() })
    .from(m)
    .innerJoin(users, eq(users.id, m.userId))
    .where(condition);
  const rows =
    page.limit === 0
      ? []
      : await db
          .select(userColumns)
          .from(m)
          .innerJoin(users, eq(users.id, m.userId))
          .where(condition)
          .orderBy(asc(m.id))
          .offset(page.offset)
          .limit(page.limit);
  return { total: counted?.total ?? 0, rows: rows as ScimUserRow[] };
}

const oneUser = preparedPer((db) =>
  db
    .select(userColumns)
    .from(m)
    .innerJoin(users, eq(users.id, m.userId))
    .where(and(eq(m.tenantId, sql.placeholder('tenantId')), eq(m.id, sql.placeholder('membershipId'))))
    .prepare('scim_user'),
);

/** The membership as a SCIM User; undefined when it is not the tenant's. */
export async function findScimUser(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<ScimUserRow | undefined> {
  const [row] = await oneUser(db).execute({ tenantId, membershipId });
  return row as ScimUserRow | undefined;
}

const groupsOf = preparedPer((db) =>
  db
    .select({ userId: scimGroupMembers.userId, groupId: scimGroups.id, displayName: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(
      and(
        eq(scimGroups.tenantId, sql.placeholder('tenantId')),
        sql`${scimGroupMembers.userId} = any(${sql.placeholder('userIds')}::uuid[])`,
      ),
    )
    .orderBy(asc(scimGroups.id))
    .prepare('scim_groups_of_users'),
);

export type UserGroup = { userId: string; groupId: string; displayName: string };

/** The tenant's groups each of these people is in (SCIM's read-only `groups` of a User). */
export async function findGroupsOfUsers(
  db: Executor,
  tenantId: string,
  userIds: string[],
): Promise<UserGroup[]> {
  if (userIds.length === 0) return [];
  return groupsOf(db).execute({ tenantId, userIds: `{${userIds.join(',')}}` });
}

const rolesFromGroups = preparedPer((db) =>
  db
    .select({ userId: scimGroupMembers.userId, role: sql<Role>`min(${scimGroups.role})`.as('role') })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(
      and(
        eq(scimGroups.tenantId, sql.placeholder('tenantId')),
        isNotNull(scimGroups.role),
        sql`${scimGroupMembers.userId} = any(${sql.placeholder('userIds')}::uuid[])`,
      ),
    )
    .groupBy(scimGroupMembers.userId)
    .prepare('scim_roles_from_groups'),
);

/**
 * The highest role each person's mapped groups give in the tenant (`membership_role` lists the
 * roles highest first, so its min is the highest); a person in no mapped group is absent.
 */
export async function findRolesFromGroups(
  db: Executor,
  tenantId: string,
  userIds: string[],
): Promise<Map<string, Role>> {
  if (userIds.length === 0) return new Map();
  const rows = await rolesFromGroups(db).execute({ tenantId, userIds: `{${userIds.join(',')}}` });
  return new Map(rows.map((row) => [row.userId, row.role]));
}

const scimNameOf = preparedPer((db) =>
  db
    .select({ scimName: m.scimName })
    .from(m)
    .where(and(eq(m.tenantId, sql.placeholder('tenantId')), eq(m.id, sql.placeholder('membershipId'))))
    .prepare('scim_name_of_membership'),
);

export async function findScimName(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<ScimName | null> {
  const [row] = await scimNameOf(db).execute({ tenantId, membershipId });
  return row?.scimName ?? null;
}

/** What a directory's change writes, decided by the service (scim-users.service.ts). */
export type DirectoryChange = {
  role: Role;
  suspendedAt: Date | null;
  suspensionReason: string | null;
  startsAt: Date | null;
  endsAt: Date | null;
  externalId: string | null;
  scimName: ScimName | null;
  invitedDisplayName: string | null;
};

const at = (name: string) => sql`${sql.placeholder(name)}::timestamptz`;
const iso = (date: Date | null) => date?.toISOString() ?? null;

const writeChange = preparedPer((db) =>
  db
    .update(m)
    .set({
      role: sql`${sql.placeholder('role')}::membership_role`,
      suspendedAt: at('suspendedAt'),
      suspensionReason: sql`${sql.placeholder('suspensionReason')}::text`,
      startsAt: at('startsAt'),
      endsAt: at('endsAt'),
      externalId: sql`${sql.placeholder('externalId')}::text`,
      scimName: sql`${sql.placeholder('scimName')}::jsonb`,
      invitedDisplayName: sql`${sql.placeholder('invitedDisplayName')}::text`,
      // Written by the directory: from now on, it alone decides role, status and removal.
      managedBy: sql`'scim'`,
      version: sql`${m.version} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(m.tenantId, sql.placeholder('tenantId')), eq(m.id, sql.placeholder('membershipId'))))
    .returning({ ...membershipColumns, status: statusOf().as('status') })
    .prepare('scim_write_membership'),
);

/** Writes what the directory's change decided, and marks the membership as the directory's. */
export async function writeDirectoryChange(
  db: Executor,
  tenantId: string,
  membershipId: string,
  change: DirectoryChange,
): Promise<Changed | undefined> {
  const [row] = await writeChange(db).execute({
    tenantId,
    membershipId,
    role: change.role,
    suspendedAt: iso(change.suspendedAt),
    suspensionReason: change.suspensionReason,
    startsAt: iso(change.startsAt),
    endsAt: iso(change.endsAt),
    externalId: change.externalId,
    scimName: change.scimName === null ? null : JSON.stringify(change.scimName),
    invitedDisplayName: change.invitedDisplayName,
  });
  return row;
}

const managedOf = preparedPer((db) =>
  db
    .select(withUser)
    .from(m)
    .innerJoin(users, eq(users.id, m.userId))
    .where(
      and(
        eq(m.tenantId, sql.placeholder('tenantId')),
        eq(m.managedBy, 'scim'),
        sql`${m.userId} = any(${sql.placeholder('userIds')}::uuid[])`,
      ),
    )
    .orderBy(asc(m.id))
    .prepare('scim_managed_memberships_of_users'),
);

/** These people's directory-managed memberships in the tenant: whose role their groups decide. */
export async function findManagedMemberships(
  db: Executor,
  tenantId: string,
  userIds: string[],
): Promise<MembershipWithUser[]> {
  if (userIds.length === 0) return [];
  return managedOf(db).execute({ tenantId, userIds: `{${userIds.join(',')}}` });
}
