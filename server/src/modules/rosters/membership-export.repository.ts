import type { MembershipStatus, Role } from '@tms/contract';
import { and, asc, eq, gt, inArray, is, isNull, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Database, Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships, tenants, users } from '../../db/schema.js';
import { statusOf } from '../../rules/membership-status.sql.js';
import { TENANT_READ } from '../memberships/memberships.repository.js';

export type ExportFilters = { tenantId: string; role?: Role; statuses?: MembershipStatus[] };

/** One membership as the export writes it: every value already text, null where the API shows null. */
export type ExportedMembership = {
  email: string | null;
  role: Role;
  /** The name the API shows: the person's own, else the one this tenant gave when inviting. */
  displayName: string | null;
  startsAt: string | null;
  endsAt: string | null;
  userId: string;
  tenantMembershipId: string;
  status: MembershipStatus;
};

/** Rows per round trip: a page on PGlite, a cursor fetch on PostgreSQL. */
export const EXPORT_BATCH_ROWS = 1000;

/**
 * How long an export's transaction may last on PostgreSQL. The service's 5 s statement timeout
 * would cut it: a cursor is one statement, open for as long as the client takes to download. The
 * snapshot it holds keeps vacuum from cleaning behind it, so not for ever either.
 */
export const EXPORT_TIME_LIMIT_MS = 10 * 60_000;

/** As the API writes a timestamp (Date.toISOString), made by the database for both drivers alike. */
const isoUtc = (column: SQLWrapper) =>
  sql<string | null>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// Aliased as the fields are named: the PostgreSQL cursor reads rows by these names, unmapped.
const EXPORT_FIELDS = {
  email: sql<string | null>`${users.email}`.as('email'),
  role: sql<Role>`${tenantMemberships.role}`.as('role'),
  displayName: sql<string | null>`coalesce(${users.displayName}, ${tenantMemberships.invitedDisplayName})`.as(
    'displayName',
  ),
  startsAt: isoUtc(tenantMemberships.startsAt).as('startsAt'),
  endsAt: isoUtc(tenantMemberships.endsAt).as('endsAt'),
  userId: sql<string>`${tenantMemberships.userId}`.as('userId'),
  tenantMembershipId: sql<string>`${tenantMemberships.id}`.as('tenantMembershipId'),
  status: statusOf().as('status'),
};

/** The tenant's memberships matching the filters, in creation order (the id is a UUIDv7). */
function membershipsInOrder(db: Executor, filters: ExportFilters, afterId: string | undefined) {
  const conditions: (SQL | undefined)[] = [
    eq(tenantMemberships.tenantId, filters.tenantId),
    filters.role ? eq(tenantMemberships.role, filters.role) : undefined,
    filters.statuses ? inArray(statusOf(), filters.statuses) : undefined,
    afterId === undefined ? undefined : gt(tenantMemberships.id, afterId),
  ];
  return db
    .select(EXPORT_FIELDS)
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(and(...conditions))
    .orderBy(asc(tenantMemberships.id));
}

/**
 * Every membership matching the filters, a batch at a time, read only as fast as the caller asks
 * for the next batch. Closing the iterator early (`return()`) stops the reading at once.
 */
export function readMembershipsForExport(
  db: Database,
  filters: ExportFilters,
): AsyncGenerator<ExportedMembership[], void, undefined> {
  if (is(db, PostgresJsDatabase)) {
    const client = (db as unknown as { $client: postgres.Sql }).$client;
    const { sql: text, params } = membershipsInOrder(db, filters, undefined).toSQL();
    return batchesFromCursor(client, text, params);
  }
  return batchesByKeyset(db, filters);
}

/**
 * PGlite: pages by keyset, each its own statement. PGlite has one connection, which a transaction
 * would hold for as long as a slow client downloads, and every other request would wait for it.
 * So no snapshot either: a membership changed during the export is seen as it is when its page is read.
 */
async function* batchesByKeyset(db: Database, filters: ExportFilters) {
  let afterId: string | undefined;
  for (;;) {
    const page = await membershipsInOrder(db, filters, afterId).limit(EXPORT_BATCH_ROWS);
    if (page.length > 0) yield page;
    if (page.length < EXPORT_BATCH_ROWS) return;
    afterId = page[page.length - 1]?.tenantMembershipId;
  }
}

/**
 * PostgreSQL: one statement, its rows fetched through a cursor (a portal, EXPORT_BATCH_ROWS per
 * fetch) in one read-only transaction: one snapshot for the whole export, and a batch or two in
 * memory, however large the tenant. The transaction lives in postgres.js's `begin` callback, which waits here until
 * the reading ends: the last batch read, an error, or the caller closing the iterator (a client
 * gone), which closes the cursor and ends the transaction.
 */
async function* batchesFromCursor(client: postgres.Sql, text: string, params: unknown[]) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let opened!: (cursor: AsyncIterator<ExportedMembership[]>) => void;
  const cursorOpened = new Promise<AsyncIterator<ExportedMembership[]>>((resolve) => {
    opened = resolve;
  });
  const transaction = client.begin(async (tx) => {
    await tx.unsafe(`set transaction read only; set local statement_timeout = ${EXPORT_TIME_LIMIT_MS}`);
    const rows = tx.unsafe(text, params as postgres.ParameterOrJSON<never>[]).cursor(EXPORT_BATCH_ROWS);
    opened(rows[Symbol.asyncIterator]() as unknown as AsyncIterator<ExportedMembership[]>);
    await released;
  });
  // Settled before we release it only when its connection closed (the session was ended, the
  // network cut). postgres.js 3.4.9 then answers the cursor's next fetch `done`, as if the rows had
  // ended (a silently short file), and a fetch or a close asked of it then throws inside the driver,
  // where nothing can catch it. So the cursor is not touched again, and the transaction's error is
  // what the reading ends with.
  let connectionLost = false;
  transaction.catch(() => {
    connectionLost = true;
  });
  const cursor = await Promise.race([
    cursorOpened,
    // BEGIN failed (the database is down): nothing was opened.
    transaction.then(() =>
      Promise.reject(new Error('the export transaction ended before its cursor opened')),
    ),
  ]);
  // The next batch is asked for before this one is handed on, so that the database reads it while
  // the caller encodes and sends this one: two batches in memory at most.
  let fetching: Promise<IteratorResult<ExportedMembership[]>> | undefined;
  const fetchNext = () => {
    fetching = cursor.next();
    // Failed while the caller holds this generator between batches (a client that stopped
    // reading): handled when awaited, never an unhandled rejection meanwhile.
    fetching.catch(() => {});
    return fetching;
  };
  try {
    let batch = await fetchNext();
    while (!batch.done && !connectionLost) {
      const rows = batch.value;
      const next = fetchNext();
      yield rows;
      batch = await next;
    }
  } finally {
    // The driver closes a cursor only between fetches: a fetch under way lands first.
    await fetching?.catch(() => {});
    if (!connectionLost) await cursor.return?.();
    release();
    await transaction;
  }
}

const exportTenantWithCaller = preparedPer((db) =>
  selectWithCaller(db, TENANT_READ, (gate) =>
    db
      .select({ slug: tenants.slug })
      .from(tenants)
      .where(and(gate, eq(tenants.id, sql.placeholder('tenantId')), isNull(tenants.deletedAt))),
  ).prepare('export_tenant_with_caller'),
);

/** The caller (with its role in the tenant) and the tenant's slug, which names the download. */
export async function findExportTenantAs(
  db: Executor,
  subject: string,
  tenantId: string,
): Promise<CallerRead<{ slug: string }>> {
  return callerReadOf(await exportTenantWithCaller(db).execute({ subject, tenantId }));
}
