import { and, asc, eq, gt, ilike, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { type TenantRow, tenants } from '../../db/schema.js';

/** Escapes LIKE's wildcards so that a search for "50%" means the characters, not a pattern. */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function insertTenant(
  db: Executor,
  row: { id: string; slug: string; name: string },
): Promise<TenantRow> {
  const [inserted] = await db.insert(tenants).values(row).returning();
  if (!inserted) throw new Error('insert into tenants returned no row');
  return inserted;
}

export async function findTenant(db: Executor, id: string): Promise<TenantRow | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id)).limit(1);
  return row;
}

/** The tenant, locked for the rest of the transaction: its changes then apply to what was checked. */
export async function findTenantForUpdate(db: Executor, id: string): Promise<TenantRow | undefined> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id)).for('update');
  return row;
}

export async function listTenants(
  db: Executor,
  options: { afterId?: string; q?: string; limit: number },
): Promise<TenantRow[]> {
  const conditions: (SQL | undefined)[] = [
    options.afterId ? gt(tenants.id, options.afterId) : undefined,
    options.q
      ? or(ilike(tenants.name, likePattern(options.q)), ilike(tenants.slug, likePattern(options.q)))
      : undefined,
  ];
  return db
    .select()
    .from(tenants)
    .where(and(...conditions))
    .orderBy(asc(tenants.id))
    .limit(options.limit);
}

export async function updateTenant(
  db: Executor,
  id: string,
  changes: { slug?: string; name?: string },
): Promise<TenantRow | undefined> {
  const [row] = await db
    .update(tenants)
    .set({ ...changes, version: sql`${tenants.version} + 1`, updatedAt: sql`now()` })
    .where(eq(tenants.id, id))
    .returning();
  return row;
}

/** Memberships go with the tenant (ON DELETE CASCADE), in the same statement. */
export async function deleteTenant(db: Executor, id: string): Promise<boolean> {
  const rows = await db.delete(tenants).where(eq(tenants.id, id)).returning({ id: tenants.id });
  return rows.length > 0;
}
