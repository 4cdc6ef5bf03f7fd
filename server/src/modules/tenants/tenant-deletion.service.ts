import type { Database } from '../../db/database.js';
import type { TenantRow } from '../../db/schema.js';
import { TenantNotFoundError } from '../../errors/index.js';
import {
  allowLongPurge,
  deleteTenantsDeletedBefore,
  findAnyTenant,
  type PurgedTenant,
  unmarkTenantDeleted,
} from './tenant-deletion.repository.js';
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
  tenantId: string,
  retention: TenantRetention,
  now: Date = new Date(),
): Promise<TenantRow> {
  const restored = await unmarkTenantDeleted(db, tenantId, retentionCutoff(now, retention));
  if (restored) return restored;
  const tenant = await findAnyTenant(db, tenantId);
  if (tenant && tenant.deletedAt === null) return tenant;
  throw new TenantNotFoundError(tenantId);
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
      return deleteTenantsDeletedBefore(tx, cutoff, batchSize);
    });
    purged.push(...batch);
    if (batch.length < batchSize) return purged;
  }
}
