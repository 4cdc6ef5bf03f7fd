import { and, asc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/database.js';
import { type TenantRow, tenants } from '../../db/schema.js';

/** A deleted tenant's mark: the row stays, so its slug stays taken and a restore loses nothing. */
export async function markTenantDeleted(db: Executor, id: string): Promise<TenantRow | undefined> {
  const [row] = await db
    .update(tenants)
    .set({ deletedAt: sql`now()`, version: sql`${tenants.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(tenants.id, id), isNull(tenants.deletedAt)))
    .returning();
  return row;
}

/**
 * Clears the mark of a tenant deleted after `deletedAfter` (still within its retention). One
 * statement: it waits for a purge that locked the row, and then finds no row; a purge that comes
 * second skips the row this holds, and then finds it active.
 */
export async function unmarkTenantDeleted(
  db: Executor,
  id: string,
  deletedAfter: Date,
): Promise<TenantRow | undefined> {
  const [row] = await db
    .update(tenants)
    .set({ deletedAt: null, version: sql`${tenants.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(tenants.id, id), gt(tenants.deletedAt, deletedAfter)))
    .returning();
  return row;
}

/** The tenant in whatever state, locked: what a restore changes, read before it changes it. */
export async function lockAnyTenant(db: Executor, id: string): Promise<TenantRow | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id)).for('update');
  return row;
}

/** The tenant in whatever state, deleted included. */
export async function findAnyTenant(db: Executor, id: string): Promise<TenantRow | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id));
  return row;
}

export type PurgedTenant = Pick<TenantRow, 'id' | 'slug' | 'name' | 'deletedAt'>;

/**
 * Removes for good up to `limit` tenants deleted at or before `deletedBefore`, with everything
 * they hold (ON DELETE CASCADE). SKIP LOCKED: a row another purge (or a restore) holds is left to
 * it, so two purges never both take one tenant and neither waits for the other; a row restored
 * meanwhile is read again under its lock, and no longer matches.
 */
export async function deleteTenantsDeletedBefore(
  db: Executor,
  deletedBefore: Date,
  limit: number,
): Promise<TenantRow[]> {
  const due = db
    .select({ id: tenants.id })
    .from(tenants)
    .where(lte(tenants.deletedAt, deletedBefore))
    .orderBy(asc(tenants.deletedAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db.delete(tenants).where(inArray(tenants.id, due)).returning();
}

/**
 * The server's connections bound every statement to a few seconds (db/client.ts), but a purge
 * removes all a tenant held in one statement, which for a large tenant takes longer. No request
 * waits for it (a deleted tenant's rows are locked by nobody else, bar a restore come too late),
 * so its transaction is given longer.
 */
export async function allowLongPurge(tx: Transaction): Promise<void> {
  await tx.execute(sql`set local statement_timeout = '15min'`);
}
