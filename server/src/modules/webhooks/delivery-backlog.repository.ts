import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { rowsOf } from '../../db/rows.js';

/** Past this, the backlog is reported as this: the count's cost stays bounded however long the queue. */
export const BACKLOG_COUNT_CAP = 100_000;

/**
 * The deliveries waiting to be sent (PENDING), every tenant's and endpoint's, disabled endpoints'
 * included (their queue waits), up to BACKLOG_COUNT_CAP: read from the queue's partial index
 * (webhook_deliveries_pending_idx) at each metrics scrape. Deliberately across tenants: it is the
 * operator's view of the outbox, as the delivery worker's search for due endpoints is.
 */
export async function countPendingDeliveries(db: Executor): Promise<number> {
  const result = await db.execute<{ pending: number }>(sql`
    select count(*)::int as pending from (
      select 1 from webhook_deliveries where status = 'PENDING' limit ${BACKLOG_COUNT_CAP}
    ) waiting`);
  return rowsOf<{ pending: number }>(result)[0]?.pending ?? 0;
}
