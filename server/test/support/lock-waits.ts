import { sql as drizzleSql } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Database } from '../../src/db/database.js';
import { rowsOf } from '../../src/db/rows.js';
import { until } from './until.js';

const WAITERS =
  "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'";

/**
 * Returns once `n` sessions of the test's database wait for a lock: the requests sent have reached
 * the statement that queues them behind a transaction the test holds. `db`: a connection of the
 * test's own (postgres.js), or the test server's handle.
 */
export async function untilWaitingForLocks(db: postgres.Sql | Database, n = 1): Promise<void> {
  const waiting = async (): Promise<number> => {
    if (typeof db === 'function') return (await db.unsafe<{ n: number }[]>(WAITERS))[0]?.n ?? 0;
    return rowsOf<{ n: number }>(await db.execute(drizzleSql.raw(WAITERS)))[0]?.n ?? 0;
  };
  await until(`${n} statement(s) waiting for a lock`, async () => (await waiting()) >= n, 5000, 10);
}
