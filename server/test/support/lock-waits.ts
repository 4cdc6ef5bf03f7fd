import type postgres from 'postgres';
import { until } from './until.js';

/**
 * Returns once `n` sessions of the test's database wait for a lock: the requests sent have reached
 * the statement that queues them behind a transaction the test holds.
 */
export async function untilWaitingForLocks(sql: postgres.Sql, n = 1): Promise<void> {
  await until(
    `${n} statement(s) waiting for a lock`,
    async () => {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`;
      return (row?.n ?? 0) >= n;
    },
    5000,
    10,
  );
}
