import type { Role } from '@tms/contract';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { tenantMemberships, tenants } from '../../db/schema.js';

export type TenantAndRole = { tenantExists: boolean; role: Role | null };

/**
 * Does the tenant exist, and what is the user's role in it. With `lock`, the tenant row is locked
 * for the rest of the transaction, which serialises the membership writes of one tenant (the
 * last-owner rule and the hierarchy checks then read a stable picture).
 */
export async function findTenantAndRole(
  db: Executor,
  tenantId: string,
  userId: string,
  lock: boolean,
): Promise<TenantAndRole> {
  if (lock) {
    // Not one statement: under READ COMMITTED a statement reads with the snapshot it started with,
    // so a role read alongside the lock would be the one from before the wait, and the writer that
    // held the lock may just have demoted or removed the caller. After the lock, a fresh statement
    // sees every change committed by the writers that went first.
    const [locked] = await db
      .select({ tenantId: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, tenantId))
      .for('update');
    if (!locked) return { tenantExists: false, role: null };
    return { tenantExists: true, role: await findMemberRole(db, tenantId, userId) };
  }
  // One round trip when nothing is locked.
  const [row] = await db
    .select({ tenantId: tenants.id, role: tenantMemberships.role })
    .from(tenants)
    .leftJoin(
      tenantMemberships,
      and(eq(tenantMemberships.tenantId, tenants.id), eq(tenantMemberships.userId, userId)),
    )
    .where(eq(tenants.id, tenantId));
  return { tenantExists: row !== undefined, role: row?.role ?? null };
}

/** Only the caller's role, for callers that are not super administrators. */
export async function findMemberRole(db: Executor, tenantId: string, userId: string): Promise<Role | null> {
  const [row] = await db
    .select({ role: tenantMemberships.role })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, userId)))
    .limit(1);
  return row?.role ?? null;
}
