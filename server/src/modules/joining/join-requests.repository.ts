import type { JoinRequestStatus, Role } from '@tms/contract';
import { and, asc, eq, gt, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import {
  type CallerRead,
  type CallerScope,
  callerReadOf,
  selectWithCaller,
} from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { joinBlocks, joinRequests, tenantMemberships, tenants, users } from '../../db/schema.js';
import { type MembershipWithUser, withUser } from '../memberships/memberships.repository.js';
import { manageableBy } from './join-codes.repository.js';

/**
 * The requests a caller may decide (rules/join-rules.ts: requestDeciderProblem): an ADMIN or above
 * all of them, a TEACHER those a STUDENT code opened (a domain's are the school's).
 */
const decidableBy = (caller: CallerScope) =>
  sql`(${manageableBy(caller, joinRequests.role)} and (${caller.isSuperAdmin} or ${caller.tenantRole} in ('OWNER', 'ADMIN') or ${joinRequests.joinCodeId} is not null))`;

/** A request's status as shown: a PENDING row past `expires_at` is EXPIRED (no job needed). */
export const joinRequestStatus = sql<JoinRequestStatus>`(case when ${joinRequests.status} = 'PENDING' and ${joinRequests.expiresAt} <= now() then 'EXPIRED' else ${joinRequests.status}::text end)`;

export type JoinRequestView = {
  id: string;
  tenantId: string;
  userId: string;
  email: string | null;
  displayName: string | null;
  joinCodeId: string | null;
  domainId: string | null;
  role: Role;
  status: JoinRequestStatus;
  expiresAt: Date;
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
};

export const joinRequestColumns = {
  id: joinRequests.id,
  tenantId: joinRequests.tenantId,
  userId: joinRequests.userId,
  email: users.email,
  displayName: users.displayName,
  joinCodeId: joinRequests.joinCodeId,
  domainId: joinRequests.domainId,
  role: joinRequests.role,
  status: joinRequestStatus.as('status'),
  expiresAt: joinRequests.expiresAt,
  decidedBy: joinRequests.decidedBy,
  decidedAt: joinRequests.decidedAt,
  createdAt: joinRequests.createdAt,
};

const inTenant = (tenantId: string, joinRequestId: string) =>
  and(eq(joinRequests.tenantId, tenantId), eq(joinRequests.id, joinRequestId));

function joinRequestsPage(db: Executor, filters: { after: boolean; status: boolean }) {
  const read = {
    rule: 'tenantTeacher',
    tenantId: sql.placeholder('tenantId'),
    orderBy: (item: Record<string, SQL>) => [asc(item.id as SQL)],
  } as const;
  return selectWithCaller(db, read, (gate, caller) =>
    db
      .select(joinRequestColumns)
      .from(joinRequests)
      .innerJoin(users, eq(users.id, joinRequests.userId))
      .where(
        and(
          gate,
          eq(joinRequests.tenantId, sql.placeholder('tenantId')),
          decidableBy(caller),
          filters.after ? gt(joinRequests.id, sql.placeholder('afterId')) : undefined,
          filters.status ? eq(joinRequestStatus, sql.placeholder('status')) : undefined,
        ),
      )
      .orderBy(asc(joinRequests.id))
      .limit(sql.placeholder('limit')),
  );
}

const PAGES = {
  first: preparedPer((db) =>
    joinRequestsPage(db, { after: false, status: false }).prepare('join_requests_page_first'),
  ),
  next: preparedPer((db) =>
    joinRequestsPage(db, { after: true, status: false }).prepare('join_requests_page_next'),
  ),
  firstOf: preparedPer((db) =>
    joinRequestsPage(db, { after: false, status: true }).prepare('join_requests_page_first_of_status'),
  ),
  nextOf: preparedPer((db) =>
    joinRequestsPage(db, { after: true, status: true }).prepare('join_requests_page_next_of_status'),
  ),
};

/** The caller (with its role in the tenant) and a page of the requests it may decide, in one statement. */
export async function listJoinRequestsAs(
  db: Executor,
  subject: string,
  page: { tenantId: string; status?: JoinRequestStatus; afterId?: string; limit: number },
): Promise<CallerRead<JoinRequestView>> {
  const after = page.afterId !== undefined;
  const statement =
    page.status === undefined ? (after ? PAGES.next : PAGES.first) : after ? PAGES.nextOf : PAGES.firstOf;
  return callerReadOf(await statement(db).execute({ subject, ...page }));
}

export type MyJoinRequestView = JoinRequestView & { tenantSlug: string; tenantName: string };

const myJoinRequests = preparedPer((db) =>
  selectWithCaller(db, { rule: 'authenticated', orderBy: (item) => [asc(item.id as SQL)] }, (_gate, caller) =>
    db
      .select({ ...joinRequestColumns, tenantSlug: tenants.slug, tenantName: tenants.name })
      .from(joinRequests)
      .innerJoin(users, eq(users.id, joinRequests.userId))
      // A deleted tenant's requests are as gone as the tenant.
      .innerJoin(tenants, and(eq(tenants.id, joinRequests.tenantId), sql`${tenants.deletedAt} is null`))
      .where(eq(joinRequests.userId, caller.id))
      .orderBy(asc(joinRequests.id)),
  ).prepare('my_join_requests'),
);

/** The caller and its join requests, in every tenant, in one statement. */
export async function listMyJoinRequestsAs(
  db: Executor,
  subject: string,
): Promise<CallerRead<MyJoinRequestView>> {
  return callerReadOf(await myJoinRequests(db).execute({ subject }));
}

/** The request, within its tenant (the scope rule). */
export async function findJoinRequestInTenant(
  db: Executor,
  tenantId: string,
  joinRequestId: string,
): Promise<JoinRequestView | undefined> {
  const [row] = await db
    .select(joinRequestColumns)
    .from(joinRequests)
    .innerJoin(users, eq(users.id, joinRequests.userId))
    .where(inTenant(tenantId, joinRequestId));
  return row;
}

/** The person's pending request to the tenant, if any (one at most: the partial unique index). */
export async function findPendingJoinRequest(
  db: Executor,
  tenantId: string,
  userId: string,
): Promise<JoinRequestView | undefined> {
  const [row] = await db
    .select(joinRequestColumns)
    .from(joinRequests)
    .innerJoin(users, eq(users.id, joinRequests.userId))
    .where(
      and(
        eq(joinRequests.tenantId, tenantId),
        eq(joinRequests.userId, userId),
        eq(joinRequests.status, 'PENDING'),
        gt(joinRequests.expiresAt, sql`now()`),
      ),
    );
  return row;
}

/** Which tenant's lock the person's cancel must take; a request's tenant never changes. */
export async function tenantOfJoinRequest(db: Executor, joinRequestId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ tenantId: joinRequests.tenantId })
    .from(joinRequests)
    .where(eq(joinRequests.id, joinRequestId));
  return row?.tenantId;
}

/**
 * A new PENDING request. A lapsed one of the same person still PENDING in its row is written
 * EXPIRED first, so that it no longer holds the one pending slot the unique index keeps.
 */
export async function insertJoinRequest(
  db: Executor,
  request: { tenantId: string; userId: string; joinCodeId: string; role: Role; days: number },
): Promise<string> {
  await db
    .update(joinRequests)
    .set({ status: 'EXPIRED', updatedAt: sql`now()` })
    .where(
      and(
        eq(joinRequests.tenantId, request.tenantId),
        eq(joinRequests.userId, request.userId),
        eq(joinRequests.status, 'PENDING'),
        sql`${joinRequests.expiresAt} <= now()`,
      ),
    );
  const id = uuidv7();
  await db.insert(joinRequests).values({
    id,
    tenantId: request.tenantId,
    userId: request.userId,
    joinCodeId: request.joinCodeId,
    role: request.role,
    expiresAt: sql`now() + make_interval(days => ${request.days}::int)`,
  });
  return id;
}

/** Records the decision on a request found PENDING under the lock. */
export async function decideJoinRequest(
  db: Executor,
  tenantId: string,
  joinRequestId: string,
  decision: { status: 'APPROVED' | 'REJECTED' | 'BLOCKED' | 'CANCELLED'; decidedBy: string | null },
): Promise<void> {
  const rows = await db
    .update(joinRequests)
    .set({ ...decision, decidedAt: sql`now()`, updatedAt: sql`now()` })
    .where(inTenant(tenantId, joinRequestId))
    .returning({ id: joinRequests.id });
  if (rows.length === 0) throw new Error(`join request ${joinRequestId} vanished under its tenant's lock`);
}

/** Whether the tenant blocked the person from joining. */
export async function isBlocked(db: Executor, tenantId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: joinBlocks.userId })
    .from(joinBlocks)
    .where(and(eq(joinBlocks.tenantId, tenantId), eq(joinBlocks.userId, userId)));
  return row !== undefined;
}

export async function insertJoinBlock(
  db: Executor,
  block: { tenantId: string; userId: string; joinRequestId: string; blockedBy: string | null },
): Promise<void> {
  await db.insert(joinBlocks).values(block).onConflictDoNothing();
}

export type JoinBlockView = {
  tenantId: string;
  userId: string;
  joinRequestId: string | null;
  createdAt: Date;
};

/** Lifts a block; undefined when the person was not blocked. */
export async function deleteJoinBlock(
  db: Executor,
  tenantId: string,
  userId: string,
): Promise<JoinBlockView | undefined> {
  const [row] = await db
    .delete(joinBlocks)
    .where(and(eq(joinBlocks.tenantId, tenantId), eq(joinBlocks.userId, userId)))
    .returning({
      tenantId: joinBlocks.tenantId,
      userId: joinBlocks.userId,
      joinRequestId: joinBlocks.joinRequestId,
      createdAt: joinBlocks.createdAt,
    });
  return row;
}

/** The person's membership of the tenant, in any status. */
export async function findMembershipOfUser(
  tx: Executor,
  tenantId: string,
  userId: string,
): Promise<MembershipWithUser | undefined> {
  const [row] = await tx
    .select(withUser)
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, userId)));
  return row;
}
