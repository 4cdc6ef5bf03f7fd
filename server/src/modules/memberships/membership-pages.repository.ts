import type { MembershipSort, MembershipStatus, Role } from '@tms/contract';
import { and, asc, count, desc, eq, gt, ilike, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { likePattern } from '../../db/like-pattern.js';
import { plannedEachRun, preparedPer } from '../../db/prepared.js';
import { tenantMemberships, users } from '../../db/schema.js';
import type { SortedPosition } from '../../pagination/cursor.js';
import { statusOf } from '../../rules/membership-status.sql.js';
import { type MembershipWithUser, TENANT_READ, withUser } from './memberships.repository.js';

export type ListFilters = { tenantId: string; role?: Role; q?: string; statuses?: MembershipStatus[] };

/** The filters every page and count of a tenant's members share: the tenant first (the scope rule). */
function filtered(filters: ListFilters, pattern: string | undefined): SQL | undefined {
  return and(
    eq(tenantMemberships.tenantId, filters.tenantId),
    filters.role ? eq(tenantMemberships.role, filters.role) : undefined,
    pattern === undefined ? undefined : ilike(tenantMemberships.search, pattern),
    filters.statuses ? inArray(statusOf(), filters.statuses) : undefined,
  );
}

type Shape = { after: boolean; role: boolean; q: boolean; status: boolean };
const shapeKey = (shape: Shape) =>
  Number(shape.after) | (Number(shape.role) << 1) | (Number(shape.q) << 2) | (Number(shape.status) << 3);

/**
 * The status is computed (statusOf: SCHEDULED and ENDED follow from the dates and the clock), so
 * no index serves it: the page walks the tenant's rows in order and keeps those in the statuses
 * asked for. They come as one text (`ACTIVE,SUSPENDED`), one parameter however many.
 */
const IN_STATUSES = sql`${statusOf()} = any(string_to_array(${sql.placeholder('statuses')}::text, ','))`;

/**
 * A page in creation order (the default), by the shape of its filters, prepared: the common pages
 * (no filter, then a cursor) are then as cheap to issue as a lookup. Sixteen shapes, each built on
 * first use; a search's is built once too, but planned for its pattern each time (plannedEachRun).
 */
const inCreationOrder = (shape: Shape) =>
  preparedPer((db) => {
    const statement = selectWithCaller(
      db,
      { ...TENANT_READ, orderBy: (item) => [asc(item.id as SQL)] },
      (gate) =>
        db
          .select(withUser)
          .from(tenantMemberships)
          .innerJoin(users, eq(users.id, tenantMemberships.userId))
          .where(
            and(
              gate,
              eq(tenantMemberships.tenantId, sql.placeholder('tenantId')),
              shape.after ? gt(tenantMemberships.id, sql.placeholder('afterId')) : undefined,
              shape.role ? eq(tenantMemberships.role, sql.placeholder('role')) : undefined,
              shape.q ? ilike(tenantMemberships.search, sql.placeholder('pattern')) : undefined,
              shape.status ? IN_STATUSES : undefined,
            ),
          )
          .orderBy(asc(tenantMemberships.id))
          .limit(sql.placeholder('limit')),
    );
    const prepared = statement.prepare(`memberships_page_${shapeKey(shape)}`);
    // A search is planned for its pattern on every request.
    return shape.q ? plannedEachRun(prepared) : prepared;
  });

const CREATION_ORDER = Array.from({ length: 16 }, (_, key) =>
  inCreationOrder({
    after: (key & 1) !== 0,
    role: (key & 2) !== 0,
    q: (key & 4) !== 0,
    status: (key & 8) !== 0,
  }),
);

/** The caller (with its role in the tenant) and a page in creation order, in one statement. */
export async function listMembershipsAs(
  db: Executor,
  subject: string,
  filters: ListFilters & { afterId?: string; limit: number },
): Promise<CallerRead<MembershipWithUser>> {
  const key = shapeKey({
    after: Boolean(filters.afterId),
    role: Boolean(filters.role),
    q: Boolean(filters.q),
    status: Boolean(filters.statuses),
  });
  const query = CREATION_ORDER[key] as (typeof CREATION_ORDER)[number];
  const rows = await query(db).execute({
    subject,
    tenantId: filters.tenantId,
    afterId: filters.afterId,
    role: filters.role,
    pattern: filters.q ? likePattern(filters.q) : undefined,
    statuses: filters.statuses?.join(','),
    limit: filters.limit,
  });
  return callerReadOf(rows);
}

/**
 * The value each other order sorts by, case-insensitively: the canonical address (already
 * lower-case in ASCII; byte order, the same on every server), the name shown (the person's own, or
 * this tenant's label for them; in the database's collation, which orders names as people read them).
 */
const SORT_KEYS: Record<Exclude<MembershipSort, 'createdAt' | '-createdAt'>, SQL<string | null>> = {
  email: sql<string | null>`${users.emailCanonical} collate "C"`,
  displayName: sql<
    string | null
  >`lower(coalesce(${users.displayName}, ${tenantMemberships.invitedDisplayName}))`,
};

export type SortedRow = MembershipWithUser & { sortKey: string | null };

/**
 * A page in another order than creation: newest first, or by a value that may tie or be missing
 * (ties in creation order, missing values last). The cursor is past (value, id), so a page never
 * repeats or skips a row, however many share a value.
 */
export async function listMembershipsSortedAs(
  db: Executor,
  subject: string,
  filters: ListFilters & {
    sort: Exclude<MembershipSort, 'createdAt'>;
    after?: SortedPosition;
    limit: number;
  },
): Promise<CallerRead<SortedRow>> {
  const base = filtered(filters, filters.q ? likePattern(filters.q) : undefined);
  const newestFirst = filters.sort === '-createdAt';
  const key = newestFirst ? undefined : SORT_KEYS[filters.sort as keyof typeof SORT_KEYS];
  const statement = selectWithCaller(
    db,
    {
      ...TENANT_READ,
      orderBy: (item) =>
        newestFirst ? [desc(item.id as SQL)] : [sql`${item.sortKey} asc nulls last`, asc(item.id as SQL)],
    },
    (gate) => {
      const query = db
        .select({ ...withUser, sortKey: sortKeyOf(filters.sort).as('sort_key') })
        .from(tenantMemberships)
        .innerJoin(users, eq(users.id, tenantMemberships.userId));
      if (!key) {
        return query
          .where(and(gate, base, filters.after ? lt(tenantMemberships.id, filters.after.id) : undefined))
          .orderBy(desc(tenantMemberships.id))
          .limit(filters.limit);
      }
      return query
        .where(and(gate, base, filters.after ? pastPosition(key, filters.after) : undefined))
        .orderBy(sql`${key} asc nulls last`, asc(tenantMemberships.id))
        .limit(filters.limit);
    },
  );
  return callerReadOf(await statement.execute({ subject, tenantId: filters.tenantId }));
}

const sortKeyOf = (sort: Exclude<MembershipSort, 'createdAt'>): SQL<string | null> =>
  sort === '-createdAt' ? sql<string | null>`null` : SORT_KEYS[sort];

/** Rows after (key, id) in "key asc nulls last, id asc" order. */
function pastPosition(key: SQL<string | null>, after: SortedPosition): SQL | undefined {
  if (after.key === null) return and(isNull(key), gt(tenantMemberships.id, after.id));
  return or(
    sql`${key} > ${after.key}`,
    and(sql`${key} = ${after.key}`, gt(tenantMemberships.id, after.id)),
    isNull(key),
  );
}

/** How many memberships match the filters: what `includeTotal` answers. */
export async function countMemberships(db: Executor, filters: ListFilters): Promise<number> {
  const pattern = filters.q ? likePattern(filters.q) : undefined;
  const query = db.select({ n: count() }).from(tenantMemberships);
  const [row] = await query.where(filtered(filters, pattern));
  return row?.n ?? 0;
}
