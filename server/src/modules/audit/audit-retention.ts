import { sql } from 'drizzle-orm';
import type { Database } from '../../db/database.js';

const DAY_MS = 86_400_000;
/** Events per transaction: the purge never holds many rows (nor PGlite's one connection) for long. */
const PURGE_BATCH = 1000;

/**
 * Removes the audit events older than `retentionDays` (AUDIT_RETENTION_DAYS), batch by batch.
 * The table refuses deletes (migration 0007) unless the transaction says it maintains the trail:
 * this one does, with SET LOCAL, which ends with it. Sequences are not renumbered: a reader
 * still sees where the history it has starts. SKIP LOCKED: two processes purging share the work.
 */
export async function purgeExpiredAuditEvents(
  db: Database,
  retentionDays: number,
  options: { now?: Date; batchSize?: number } = {},
): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - retentionDays * DAY_MS);
  const batchSize = options.batchSize ?? PURGE_BATCH;
  let purged = 0;
  for (;;) {
    const removed = await db.transaction(async (tx) => {
      await tx.execute(sql`set local app.audit_maintenance = 'on'`);
      const rows = await tx.execute<{ id: string }>(sql`
        delete from audit_events where id in (
          select id from audit_events where occurred_at < ${cutoff.toISOString()}::timestamptz
          order by occurred_at limit ${batchSize} for update skip locked)
        returning id`);
      return rowCount(rows);
    });
    purged += removed;
    if (removed < batchSize) return purged;
  }
}

/** Both drivers' results of `execute`: postgres.js answers the rows, PGlite `{ rows }`. */
const rowCount = (result: unknown): number =>
  Array.isArray(result) ? result.length : ((result as { rows?: unknown[] }).rows?.length ?? 0);
