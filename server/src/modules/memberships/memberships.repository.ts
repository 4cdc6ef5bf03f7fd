import type { Role } from '@tms/contract';
import { and, asc, count, eq, gt, ilike, inArray, or, type Placeholder, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type MembershipRow, tenantMemberships, tenants, users } from '../../db/schema.js';
import { likePattern } from '../tenants/tenants.repository.js';

export type MembershipWithUser = MembershipRow & {
  user: { email: string | null; displayName: string | null };
};

const withUser = {
  id: tenantMemberships.id,
  tenantId: tenantMemberships.tenantId,
  userId: tenantMemberships.userId,
  role: tenantMemberships.role,
  invitedDisplayName: tenantMemberships.invitedDisplayName,
  version: tenantMemberships.version,
  createdAt: tenantMemberships.createdAt,
  updatedAt: tenantMemberships.updatedAt,
  user: { email: users.email, displayName: users.displayName },
};

/** The scope rule lives in the query: a membership of another tenant is simply not found. */
const inTenant = (tenantId: string | Placeholder, membershipId: string | Placeholder) =>
  and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.id, membershipId));

export async function insertMembership(
  db: Executor,
  row: { tenantId: string; userId: string; role: Role; invitedDisplayName?: string | null },
): Promise<MembershipRow> {
  const [inserted] = await db
    .insert(tenantMemberships)
    .values({ id: uuidv7(), ...row })
    .returning()
    .prepare('insert_membership')
    .execute();
  if (!inserted) throw new Error('insert into tenant_memberships returned no row');
  return inserted;
}

const membershipInTenant = preparedPer((db) =>
  db
    .select(withUser)
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(inTenant(sql.placeholder('tenantId'), sql.placeholder('membershipId')))
    .limit(1)
    .prepare('membership_in_tenant'),
);

export async function findMembership(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<MembershipWithUser | undefined> {
  const [row] = await membershipInTenant(db).execute({ tenantId, membershipId });
  return row;
}

export type ListFilters = { tenantId: string; afterId?: string; role?: Role; q?: string; limit: number };

type Shape = { after: boolean; role: boolean; q: boolean };
const shapeKey = (shape: Shape) => Number(shape.after) | (Number(shape.role) << 1) | (Number(shape.q) << 2);

/**
 * The list query of one shape (which optional filters it has), prepared: the common pages (no
 * filter, then a cursor) are then as cheap to issue as a lookup. Eight shapes, each built on first use.
 */
const listOfShape = (shape: Shape) =>
  preparedPer((db) => {
    const pattern = sql.placeholder('pattern');
    return db
      .select(withUser)
      .from(tenantMemberships)
      .innerJoin(users, eq(users.id, tenantMemberships.userId))
      .where(
        and(
          eq(tenantMemberships.tenantId, sql.placeholder('tenantId')),
          shape.after ? gt(tenantMemberships.id, sql.placeholder('afterId')) : undefined,
          shape.role ? eq(tenantMemberships.role, sql.placeholder('role')) : undefined,
          shape.q
            ? or(
                ilike(users.email, pattern),
                ilike(users.displayName, pattern),
                ilike(tenantMemberships.invitedDisplayName, pattern),
              )
            : undefined,
        ),
      )
      .orderBy(asc(tenantMemberships.id))
      .limit(sql.placeholder('limit'))
      .prepare(`memberships_page_${shapeKey(shape)}`);
  });

const LIST_BY_SHAPE = Array.from({ length: 8 }, (_, key) =>
  listOfShape({ after: (key & 1) !== 0, role: (key & 2) !== 0, q: (key & 4) !== 0 }),
);

export async function listMemberships(db: Executor, filters: ListFilters): Promise<MembershipWithUser[]> {
  const key = shapeKey({
    after: Boolean(filters.afterId),
    role: Boolean(filters.role),
    q: Boolean(filters.q),
  });
  const query = LIST_BY_SHAPE[key] as (typeof LIST_BY_SHAPE)[number];
  return query(db).execute({
    tenantId: filters.tenantId,
    afterId: filters.afterId,
    role: filters.role,
    pattern: filters.q ? likePattern(filters.q) : undefined,
    limit: filters.limit,
  });
}

export async function updateMembershipRole(
  db: Executor,
  tenantId: string,
  membershipId: string,
  role: Role,
): Promise<MembershipRow | undefined> {
  const [row] = await db
    .update(tenantMemberships)
    .set({ role, version: sql`${tenantMemberships.version} + 1`, updatedAt: sql`now()` })
    .where(inTenant(tenantId, membershipId))
    .returning()
    .prepare('update_membership_role')
    .execute();
  return row;
}

export async function deleteMembership(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<boolean> {
  const rows = await db
    .delete(tenantMemberships)
    .where(inTenant(tenantId, membershipId))
    .returning({ id: tenantMemberships.id })
    .prepare('delete_membership')
    .execute();
  return rows.length > 0;
}

export async function countOwners(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ owners: count() })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.role, 'OWNER')))
    .prepare('count_owners')
    .execute();
  return row?.owners ?? 0;
}

/**
 * Locks the tenants these users belong to, in the one order every such writer follows (by id), so
 * that changing their memberships waits for, and is waited on by, each tenant's membership writes.
 */
export async function lockTenantsOfUsers(db: Executor, userIds: string[]): Promise<void> {
  const theirTenants = db
    .select({ tenantId: tenantMemberships.tenantId })
    .from(tenantMemberships)
    .where(inArray(tenantMemberships.userId, userIds));
  await db
    .select({ id: tenants.id })
    .from(tenants)
    .where(inArray(tenants.id, theirTenants))
    .orderBy(asc(tenants.id))
    .for('update');
}

/**
 * Gives one user's memberships to another (an invited user claimed by someone who had already
 * signed in). Where both belong to a tenant the higher role is kept, so no tenant loses an OWNER;
 * the rest are moved. What remains on `fromUserId` goes when that user is deleted.
 */
export async function moveMemberships(db: Executor, fromUserId: string, toUserId: string): Promise<void> {
  // The role enum is declared highest first (OWNER < ADMIN < …), so "<" reads "higher than".
  await db.execute(sql`
    update tenant_memberships as mine
    set role = theirs.role, version = mine.version + 1, updated_at = now()
    from tenant_memberships as theirs
    where mine.user_id = ${toUserId} and theirs.user_id = ${fromUserId}
      and theirs.tenant_id = mine.tenant_id and theirs.role < mine.role`);
  await db.execute(sql`
    update tenant_memberships
    set user_id = ${toUserId}, version = version + 1, updated_at = now()
    where user_id = ${fromUserId}
      and tenant_id not in (select tenant_id from tenant_memberships where user_id = ${toUserId})`);
}
