import type { Role } from '@tms/contract';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Transaction } from '../db/database.js';
import { preparedPer } from '../db/prepared.js';
import { tenants } from '../db/schema.js';
import { type CallerRow, findCaller } from './caller-read.repository.js';

export type TenantFact = { exists: boolean; role: Role | null };

/** What the caller's row says of the URL's tenant: no caller, no role (and nothing known of it). */
export const factOf = (caller: CallerRow | undefined): TenantFact => ({
  exists: caller?.tenantExists ?? false,
  role: caller?.tenantRole ?? null,
});

const lockTenant = preparedPer((db) =>
  db
    .select({ id: tenants.id })
    .from(tenants)
    .where(and(eq(tenants.id, sql.placeholder('tenantId')), isNull(tenants.deletedAt)))
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
 * statement sees every change committed by the writers that went first. Both are sent at once:
 * the connection runs them one after the other (the read starts once the lock is granted), and
 * the answers come back in one round trip.
 */
export async function lockTenantForWrite(
  tx: Transaction,
  tenantId: string,
  subject: string,
): Promise<{ user: CallerRow | undefined; tenant: TenantFact }> {
  const [, user] = await Promise.all([
    lockTenant(tx).execute({ tenantId }),
    findCaller(tx, subject, tenantId),
  ]);
  return { user, tenant: factOf(user) };
}

/** Locks the tenant's row for a change its directory makes (SCIM): false when it is gone. */
export async function lockTenantForDirectory(tx: Transaction, tenantId: string): Promise<boolean> {
  return (await lockTenant(tx).execute({ tenantId })).length > 0;
}

/**
 * Locks the tenant's row for a platform change to what the tenant holds (a super administrator
 * verifying its domain), as a tenant write would: false when it is gone.
 */
export async function lockLiveTenant(tx: Transaction, tenantId: string): Promise<boolean> {
  return (await lockTenant(tx).execute({ tenantId })).length > 0;
}
