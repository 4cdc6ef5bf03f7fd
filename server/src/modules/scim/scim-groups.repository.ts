import type { Role } from '@tms/contract';
import { and, asc, count, eq, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { scimGroupMembers, scimGroups, tenantMemberships, users } from '../../db/schema.js';
import type { Attributes } from './scim-filter.sql.js';

/*
 * A tenant's directory groups and who is in them. Members are people (user ids); SCIM names them
 * by their membership's id in the tenant, which is what the directory knows as the User's id.
 */

const g = scimGroups;
const gm = scimGroupMembers;
const m = tenantMemberships;

export type GroupRow = typeof scimGroups.$inferSelect;

export const GROUP_ATTRIBUTES: Attributes = {
  id: { column: sql`${g.id}`, kind: 'uuid' },
  displayname: { column: sql`${g.displayName}`, kind: 'text' },
  externalid: { column: sql`${g.externalId}`, kind: 'exactText' },
  'meta.created': { column: sql`${g.createdAt}`, kind: 'date' },
  'meta.lastmodified': { column: sql`${g.updatedAt}`, kind: 'date' },
};

/** A page of the tenant's groups in creation order, and how many match: built per request (the filter). */
export async function listGroups(
  db: Executor,
  tenantId: string,
  where: SQL | undefined,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: GroupRow[] }> {
  const condition = and(eq(g.tenantId, tenantId), where);
  const [counted] = await db.select({ total: count() }).from(g).where(condition);
  const rows =
    page.limit === 0
      ? []
      : await db.select().from(g).where(condition).orderBy(asc(g.id)).offset(page.offset).limit(page.limit);
  return { total: counted?.total ?? 0, rows };
}

const oneGroup = preparedPer((db) =>
  db
    .select()
    .from(g)
    .where(and(eq(g.tenantId, sql.placeholder('tenantId')), eq(g.id, sql.placeholder('groupId'))))
    .prepare('scim_group'),
);

export async function findGroup(
  db: Executor,
  tenantId: string,
  groupId: string,
): Promise<GroupRow | undefined> {
  const [row] = await oneGroup(db).execute({ tenantId, groupId });
  return row;
}

const groupNamed = preparedPer((db) =>
  db
    .select({ id: g.id })
    .from(g)
    .where(
      and(eq(g.tenantId, sql.placeholder('tenantId')), eq(g.displayName, sql.placeholder('displayName'))),
    )
    .prepare('scim_group_named'),
);

/** The id of the tenant's group of this name, if any (display names are unique in a tenant). */
export async function findGroupIdNamed(
  db: Executor,
  tenantId: string,
  displayName: string,
): Promise<string | undefined> {
  const [row] = await groupNamed(db).execute({ tenantId, displayName });
  return row?.id;
}

export type GroupMember = { groupId: string; membershipId: string; userId: string; display: string | null };

const membersOfGroups = preparedPer((db) =>
  db
    .select({
      groupId: gm.groupId,
      membershipId: m.id,
      userId: gm.userId,
      display: sql<string | null>`coalesce(${users.displayName}, ${m.invitedDisplayName}, ${users.email})`,
    })
    .from(gm)
    .innerJoin(m, and(eq(m.userId, gm.userId), eq(m.tenantId, sql.placeholder('tenantId'))))
    .innerJoin(users, eq(users.id, gm.userId))
    .where(sql`${gm.groupId} = any(${sql.placeholder('groupIds')}::uuid[])`)
    .orderBy(asc(m.id))
    .prepare('scim_members_of_groups'),
);

/** The groups' members who are members of the tenant now (a removed one is kept, not shown). */
export async function findMembersOfGroups(
  db: Executor,
  tenantId: string,
  groupIds: string[],
): Promise<GroupMember[]> {
  if (groupIds.length === 0) return [];
  return membersOfGroups(db).execute({ tenantId, groupIds: `{${groupIds.join(',')}}` });
}

const memberUsers = preparedPer((db) =>
  db
    .select({ userId: gm.userId })
    .from(gm)
    .where(eq(gm.groupId, sql.placeholder('groupId')))
    .prepare('scim_group_member_users'),
);

/** Everyone in the group, those whose membership was removed too. */
export async function findMemberUserIds(db: Executor, groupId: string): Promise<string[]> {
  return (await memberUsers(db).execute({ groupId })).map((row) => row.userId);
}

const usersOfMemberships = preparedPer((db) =>
  db
    .select({ membershipId: m.id, userId: m.userId })
    .from(m)
    .where(
      and(
        eq(m.tenantId, sql.placeholder('tenantId')),
        sql`${m.id} = any(${sql.placeholder('membershipIds')}::uuid[])`,
      ),
    )
    .prepare('scim_users_of_memberships'),
);

/** The people these membership ids name in the tenant; ids of nobody here are left out. */
export async function findUsersOfMemberships(
  db: Executor,
  tenantId: string,
  membershipIds: string[],
): Promise<Map<string, string>> {
  if (membershipIds.length === 0) return new Map();
  const rows = await usersOfMemberships(db).execute({
    tenantId,
    membershipIds: `{${membershipIds.join(',')}}`,
  });
  return new Map(rows.map((row) => [row.membershipId, row.userId]));
}

export async function insertGroup(
  db: Executor,
  group: { tenantId: string; displayName: string; externalId: string | null },
): Promise<GroupRow> {
  const [row] = await db
    .insert(g)
    .values({ id: uuidv7(), ...group })
    .returning();
  if (!row) throw new Error('insert into scim_groups returned no row');
  return row;
}

/** A new name, externalId or role, or only a new version (its members changed). */
export async function updateGroup(
  db: Executor,
  tenantId: string,
  groupId: string,
  change: { displayName: string; externalId: string | null; role: Role | null },
): Promise<GroupRow> {
  const [row] = await db
    .update(g)
    .set({ ...change, version: sql`${g.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(g.tenantId, tenantId), eq(g.id, groupId)))
    .returning();
  if (!row) throw new Error('a group changed under the tenant lock vanished');
  return row;
}

export async function deleteGroup(db: Executor, tenantId: string, groupId: string): Promise<void> {
  await db.delete(g).where(and(eq(g.tenantId, tenantId), eq(g.id, groupId)));
}

/** Adds these people to the group (one statement, whatever their number); those in it already stay. */
export async function addGroupMembers(db: Executor, groupId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.execute(sql`insert into ${gm} (group_id, user_id)
    select ${groupId}::uuid, person from unnest(${`{${userIds.join(',')}}`}::uuid[]) as person
    on conflict do nothing`);
}

export async function removeGroupMembers(db: Executor, groupId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.execute(
    sql`delete from ${gm} where ${gm.groupId} = ${groupId}::uuid and ${gm.userId} = any(${`{${userIds.join(',')}}`}::uuid[])`,
  );
}

export type GroupSummaryRow = GroupRow & { memberCount: number };

const summariesWithCaller = preparedPer((db) =>
  selectWithCaller(
    db,
    {
      rule: 'tenantAdmin',
      tenantId: sql.placeholder('tenantId'),
      orderBy: (item) => [asc(item.id as never)],
    },
    (gate) =>
      db
        .select({
          id: g.id,
          tenantId: g.tenantId,
          displayName: g.displayName,
          externalId: g.externalId,
          role: g.role,
          version: g.version,
          createdAt: g.createdAt,
          updatedAt: g.updatedAt,
          // Members with a membership here: a user the directory removed stays in its groups
          // (brought back, they are in them again) but is no member of them meanwhile.
          // Spelt out: columns here render without their table, and the outer group's would be
          // taken for the inner tables' own.
          memberCount: sql<number>`(select count(*)::int from scim_group_members member
            join tenant_memberships held
              on held.user_id = member.user_id and held.tenant_id = scim_groups.tenant_id
            where member.group_id = scim_groups.id)`.as('member_count'),
        })
        .from(g)
        .where(and(gate, eq(g.tenantId, sql.placeholder('tenantId'))))
        .orderBy(asc(g.id)),
  ).prepare('scim_group_summaries_with_caller'),
);

/** The caller (with its role in the tenant) and the tenant's groups, with how many are in each. */
export async function listGroupSummariesAs(
  db: Executor,
  subject: string,
  tenantId: string,
): Promise<CallerRead<GroupSummaryRow>> {
  return callerReadOf(await summariesWithCaller(db).execute({ subject, tenantId }));
}

const memberCountOf = preparedPer((db) =>
  db
    .select({ memberCount: count() })
    .from(gm)
    .innerJoin(g, and(eq(g.id, gm.groupId), eq(g.tenantId, sql.placeholder('tenantId'))))
    .innerJoin(
      tenantMemberships,
      and(
        eq(tenantMemberships.userId, gm.userId),
        eq(tenantMemberships.tenantId, sql.placeholder('tenantId')),
      ),
    )
    .where(eq(gm.groupId, sql.placeholder('groupId')))
    .prepare('scim_group_member_count'),
);

export async function countGroupMembers(db: Executor, tenantId: string, groupId: string): Promise<number> {
  const [row] = await memberCountOf(db).execute({ tenantId, groupId });
  return row?.memberCount ?? 0;
}
