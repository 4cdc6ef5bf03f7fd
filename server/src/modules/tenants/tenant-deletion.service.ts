import type { Database } from '../../db/database.js';
import type { TenantRow } from '../../db/schema.js';
import { TenantNotFoundError } from '../../errors/index.js';
import { type AuditContext, SYSTEM_AUDIT } from '../audit/audit-context.js';
import {
  allowLongPurge,
  deleteTenantsDeletedBefore,
  lockAnyTenant,
  type PurgedTenant,
  unmarkTenantDeleted,
} from './tenant-deletion.repository.js';
import { recordTenantEvent } from './tenant-events.js';
import { retentionCutoff, type TenantRetention } from './tenant-retention.js';

export type { PurgedTenant };

/**
 * Brings a deleted tenant back, memberships and all, while its retention lasts. Past it the tenant
 * is as good as purged (the purge may already be removing it): 404, as for a purged one. An
 * active tenant is answered as it is, so that a restore retried after a lost answer gets the
 * same answer rather than an error about its own first try.
 */
export async function restoreTenant(
  db: Database,
  audit: AuditContext,
  tenantId: string,
  retention: TenantRetention,
  now: Date = new Date(),
): Promise<TenantRow> {
  return db.transaction(async (tx) => {
    // Locked first: the event's `before`. A purge that holds the row is waited for (then there is
    // none); one that comes later skips the row this holds.
    const before = await lockAnyTenant(tx, tenantId);
    if (before && before.deletedAt === null) return before;
    const restored = before && (await unmarkTenantDeleted(tx, tenantId, retentionCutoff(now, retention)));
    if (!restored) throw new TenantNotFoundError(tenantId);
    await recordTenantEvent(tx, audit, retention, 'tenant.restored', before, restored);
    return restored;
  });
}

/** Tenants per transaction: a purge of many tenants holds no lock (nor PGlite's one connection) for long. */
const PURGE_BATCH = 20;

/**
 * Removes for good the tenants deleted more than the retention before `now`, batch by batch, each
 * in its own transaction. Safe with several processes purging at once: each tenant is removed by
 * exactly one of them (see deleteTenantsDeletedBefore), and a restore racing the purge either
 * restores the tenant (which the purge then leaves) or finds it gone.
 */
export async function purgeDeletedTenants(
  db: Database,
  retention: TenantRetention,
  options: { now?: Date; batchSize?: number } = {},
): Promise<PurgedTenant[]> {
  const cutoff = retentionCutoff(options.now ?? new Date(), retention);
  const batchSize = options.batchSize ?? PURGE_BATCH;
  const purged: PurgedTenant[] = [];
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      await allowLongPurge(tx);
      const removed = await deleteTenantsDeletedBefore(tx, cutoff, batchSize);
      // The purge acts for nobody: its events have no actor (SYSTEM_AUDIT).
      for (const tenant of removed)
        await recordTenantEvent(tx, SYSTEM_AUDIT, retention, 'tenant.purged', tenant, null);
      return removed;
    });
    purged.push(...batch);
    if (batch.length < batchSize) return purged;
  }
}
