import type { Role } from '@tms/contract';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/database.js';
import { preparedPer } from '../db/prepared.js';
import { tenantMemberships, tenants, type UserRow, users } from '../db/schema.js';

export type TenantFact = { exists: boolean; role: Role | null };

const callerInTenant = preparedPer((db) =>
  db
    .select({
      user: users,
      tenantExists: sql<boolean>`${tenants.id} is not null`,
      role: tenantMemberships.role,
    })
    .from(users)
    .leftJoin(tenants, eq(tenants.id, sql.placeholder('tenantId')))
    .leftJoin(
      tenantMemberships,
      and(eq(tenantMemberships.tenantId, tenants.id), eq(tenantMemberships.userId, users.id)),
    )
    .where(eq(users.subject, sql.placeholder('subject')))
    .limit(1)
    .prepare('caller_in_tenant'),
);

/**
 * The caller, whether the URL's tenant exists and the caller's role in it, in one round trip:
 * all a read needs to decide access.
 */
export async function findCallerInTenant(
  db: Executor,
  subject: string,
  tenantId: string,
): Promise<{ user: UserRow; tenant: TenantFact } | undefined> {
  const [row] = await callerInTenant(db).execute({ subject, tenantId });
  return row && { user: row.user, tenant: { exists: row.tenantExists, role: row.role } };
}

const lockTenant = preparedPer((db) =>
  db
    .select({ id: tenants.id })
    .from(tenants)
    .where(eq(tenants.id, sql.placeholder('tenantId')))
    .for('update')
    .prepare('lock_tenant'),
);

/**
 * Locks the tenant's row for the rest of the transaction, then reads the caller and its role in
 * it: the facts a write decides on. The lock serialises the membership writes of one tenant, so
 * the last-owner rule and the hierarchy checks read a picture nobody changes before commit.
 *
 * Two statements, not one: under READ COMMITTED a statement reads with the snapshot it started
 * with, so a role read alongside the lock would be the one from before the wait, and the writer
 * that held the lock may just have demoted or removed the caller. After the lock, a fresh
 * statement sees every change committed by the writers that went first.
 */
export async function lockTenantForWrite(
  tx: Transaction,
  tenantId: string,
  subject: string,
): Promise<{ user: UserRow | undefined; tenant: TenantFact }> {
  await lockTenant(tx).execute({ tenantId });
  const found = await findCallerInTenant(tx, subject, tenantId);
  return { user: found?.user, tenant: found?.tenant ?? { exists: false, role: null } };
}
