import type { TenantStatus } from '@tms/contract';
import { and, asc, eq, gt, ilike, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { likePattern } from '../../db/like-pattern.js';
import { preparedPer } from '../../db/prepared.js';
import { type TenantRow, tenants } from '../../db/schema.js';

export async function insertTenant(
  db: Executor,
  row: { id: string; slug: string; name: string },
): Promise<TenantRow> {
  const [inserted] = await db.insert(tenants).values(row).returning();
  if (!inserted) throw new Error('insert into tenants returned no row');
  return inserted;
}

/** Platform reads are for super administrators: their statements are gated by that rule. */
const PLATFORM_READ = { rule: 'superAdmin' } as const;

/** A deleted tenant is a missing one everywhere but in the list of deleted tenants and the restore. */
const isNotDeleted = isNull(tenants.deletedAt);

const tenantWithCaller = preparedPer((db) =>
  selectWithCaller(db, PLATFORM_READ, (gate) =>
    db
      .select()
      .from(tenants)
      .where(and(gate, eq(tenants.id, sql.placeholder('tenantId')), isNotDeleted))
      .limit(1),
  ).prepare('tenant_with_caller'),
);

/** The caller and the tenant (not deleted), in one statement. */
export async function findTenantAs(
  db: Executor,
  subject: string,
  id: string,
): Promise<CallerRead<TenantRow>> {
  return callerReadOf(await tenantWithCaller(db).execute({ subject, tenantId: id }));
}

/** The tenant, locked for the rest of the transaction: its changes then apply to what was checked. */
export async function findTenantForUpdate(db: Executor, id: string): Promise<TenantRow | undefined> {
  const [row] = await db
    .select()
    .from(tenants)
    .where(and(eq(tenants.id, id), isNotDeleted))
    .for('update');
  return row;
}

/** The caller and a page of tenants, in one statement. */
export async function listTenantsAs(
  db: Executor,
  subject: string,
  options: { afterId?: string; q?: string; status: TenantStatus; limit: number },
): Promise<CallerRead<TenantRow>> {
  const statement = selectWithCaller(
    db,
    { ...PLATFORM_READ, orderBy: (item) => [asc(item.id as SQL)] },
    (gate) =>
      db
        .select()
        .from(tenants)
        .where(
          and(
            gate,
            options.status === 'DELETED' ? isNotNull(tenants.deletedAt) : isNotDeleted,
            options.afterId ? gt(tenants.id, options.afterId) : undefined,
            options.q
              ? or(ilike(tenants.name, likePattern(options.q)), ilike(tenants.slug, likePattern(options.q)))
              : undefined,
          ),
        )
        .orderBy(asc(tenants.id))
        .limit(options.limit),
  );
  return callerReadOf(await statement.execute({ subject }));
}

export async function updateTenant(
  db: Executor,
  id: string,
  changes: { slug?: string; name?: string },
): Promise<TenantRow | undefined> {
  const [row] = await db
    .update(tenants)
    .set({ ...changes, version: sql`${tenants.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(tenants.id, id), isNotDeleted))
    .returning();
  return row;
}
