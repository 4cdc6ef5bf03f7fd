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
 * The webhook deliveries of that age that are finished go too. Answers the events removed.
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
    if (removed < batchSize) break;
  }
  await purgeFinishedDeliveries(db, cutoff, batchSize);
  return purged;
}

/**
 * Webhook deliveries that are done with (DELIVERED or FAILED) go with their events, batch by
 * batch. PENDING ones stay, whatever their age (a disabled endpoint's queue waits for it to be
 * enabled again): the worker fails one whose event is gone when it reaches the head.
 */
async function purgeFinishedDeliveries(db: Database, cutoff: Date, batchSize: number): Promise<number> {
  let purged = 0;
  for (;;) {
    const rows = await db.execute<{ id: string }>(sql`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries
        where status in ('DELIVERED', 'FAILED') and created_at < ${cutoff.toISOString()}::timestamptz
        limit ${batchSize} for update skip locked)
      returning id`);
    const removed = rowCount(rows);
    purged += removed;
    if (removed < batchSize) return purged;
  }
}

/** Both drivers' results of `execute`: postgres.js answers the rows, PGlite `{ rows }`. */
const rowCount = (result: unknown): number =>
  Array.isArray(result) ? result.length : ((result as { rows?: unknown[] }).rows?.length ?? 0);
