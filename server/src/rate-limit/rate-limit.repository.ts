import { sql } from 'drizzle-orm';
import type { Executor } from '../db/database.js';

export type KeyHits = { key: string; hits: number };

/** Adds each process's pending hits in one statement and answers the totals across processes. */
export async function addHits(db: Executor, windowStart: number, pending: KeyHits[]): Promise<KeyHits[]> {
  // One JSON parameter rather than arrays: PGlite mis-frames array parameters.
  const result = await db.execute<{ key: string; hits: number }>(sql`
    insert into rate_limit_hits (key, window_start, hits)
    select pending.key, ${windowStart}::bigint, pending.hits
    from json_to_recordset(${JSON.stringify(pending)}::json) as pending(key text, hits int)
    on conflict (key, window_start) do update set hits = rate_limit_hits.hits + excluded.hits
    returning key, hits`);
  const rows = Array.isArray(result) ? result : (result as { rows: KeyHits[] }).rows;
  return rows.map((row) => ({ key: row.key, hits: Number(row.hits) }));
}

export async function deleteWindowsBefore(db: Executor, windowStart: number): Promise<void> {
  await db.execute(sql`delete from rate_limit_hits where window_start < ${windowStart}`);
}
