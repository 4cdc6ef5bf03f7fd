import type { RosterImport } from '@tms/contract';
import { and, eq, inArray, lt, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type RosterImportRow, rosterImports } from '../../db/schema.js';

const r = rosterImports;

/** Still running somewhere (or meant to): the states a heartbeat keeps alive. */
const UNFINISHED = ['QUEUED', 'RUNNING'] as const;
const isUnfinished: SQL = inArray(r.status, [...UNFINISHED]);

export type NewRosterImport = Pick<
  RosterImportRow,
  | 'id'
  | 'tenantId'
  | 'actorUserId'
  | 'mode'
  | 'dryRun'
  | 'status'
  | 'rowsRead'
  | 'rowsTotal'
  | 'summary'
  | 'errors'
  | 'warnings'
  | 'failure'
> & { finished: boolean };

/** What an import ended with: its outcome, and every count and problem it has to show. */
export type RosterImportOutcome = Pick<
  RosterImportRow,
  'status' | 'rowsRead' | 'summary' | 'errors' | 'warnings' | 'failure'
>;

export async function insertRosterImport(db: Executor, row: NewRosterImport): Promise<RosterImportRow> {
  const { finished, ...values } = row;
  const [inserted] = await db
    .insert(r)
    .values({ ...values, finishedAt: finished ? sql`clock_timestamp()` : null })
    .returning();
  if (!inserted) throw new Error('insert into roster_imports returned no row');
  return inserted;
}

/**
 * The import's end, written once: a second writer (the stale sweep of another process, say) finds
 * it finished and changes nothing. Run inside the transaction that applied the import, it commits
 * with the changes, so an import is never seen applied but unfinished, nor finished but unapplied.
 */
export async function finishRosterImport(
  db: Executor,
  tenantId: string,
  importId: string,
  outcome: Pick<RosterImportOutcome, 'status' | 'failure'> & Partial<RosterImportOutcome>,
): Promise<RosterImportRow | undefined> {
  const [row] = await db
    .update(r)
    .set({ ...outcome, finishedAt: sql`clock_timestamp()`, heartbeatAt: sql`clock_timestamp()` })
    .where(and(eq(r.tenantId, tenantId), eq(r.id, importId), isUnfinished))
    .returning();
  return row;
}

/** RUNNING, with how far it got; the heartbeat moves with it. */
export async function recordRosterProgress(
  db: Executor,
  tenantId: string,
  importId: string,
  progress: { status: 'RUNNING'; rowsRead: number },
): Promise<void> {
  await db
    .update(r)
    .set({ ...progress, heartbeatAt: sql`now()` })
    .where(and(eq(r.tenantId, tenantId), eq(r.id, importId), isUnfinished));
}

/** The imports this process is running or has queued are alive: their heartbeat moves on. */
export async function beatRosterImports(db: Executor, importIds: string[]): Promise<void> {
  if (importIds.length === 0) return;
  await db
    .update(r)
    .set({ heartbeatAt: sql`now()` })
    .where(and(inArray(r.id, importIds), isUnfinished));
}

const INTERRUPTED: RosterImport['failure'] = {
  code: 'INTERNAL_ERROR',
  message: 'interrupted: the server processing the import stopped before it finished; nothing was applied',
};

/**
 * Marks FAILED the unfinished imports whose heartbeat is older than `staleAfterMs` (one import, or
 * every one): the process that ran them died, and its transaction, if it had begun, rolled back
 * with it. Nothing was applied, so "interrupted" is the whole story.
 */
export async function failStaleRosterImports(
  db: Executor,
  staleAfterMs: number,
  only?: { tenantId: string; importId: string },
): Promise<RosterImportRow[]> {
  const stale = lt(r.heartbeatAt, sql`now() - make_interval(secs => ${staleAfterMs / 1000})`);
  const scope = only ? and(eq(r.tenantId, only.tenantId), eq(r.id, only.importId)) : undefined;
  return db
    .update(r)
    .set({ status: 'FAILED', failure: INTERRUPTED, finishedAt: sql`now()` })
    .where(and(isUnfinished, stale, scope))
    .returning();
}

const inTenant = (tenantId: Placeholder, importId: Placeholder) =>
  and(eq(r.tenantId, tenantId), eq(r.id, importId));

const importWithCaller = preparedPer((db) =>
  selectWithCaller(db, { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') }, (gate) =>
    db
      .select()
      .from(r)
      .where(and(gate, inTenant(sql.placeholder('tenantId'), sql.placeholder('importId'))))
      .limit(1),
  ).prepare('roster_import_with_caller'),
);

/** The caller (with its role in the tenant) and the import, within the tenant, in one statement. */
export async function findRosterImportAs(
  db: Executor,
  subject: string,
  tenantId: string,
  importId: string,
): Promise<CallerRead<RosterImportRow>> {
  return callerReadOf(await importWithCaller(db).execute({ subject, tenantId, importId }));
}
