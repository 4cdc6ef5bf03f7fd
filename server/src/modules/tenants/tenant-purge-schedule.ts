import type { Logger } from '../../logger.js';
import type { PurgedTenant } from './tenant-deletion.service.js';

export type TenantPurgeSchedule = { stop(): Promise<void> };

/**
 * Runs `purge` in this process at start and then every `intervalMinutes` (0: never; `npm run purge`
 * from a scheduler of one's own does it instead). Every process of a deployment may run it: they
 * share the work, never a tenant (see purgeDeletedTenants). One run at a time; the timer never
 * keeps the process alive, and `stop` waits for a run under way, so that the database is not
 * closed under it.
 */
export function scheduleTenantPurge(
  purge: () => Promise<PurgedTenant[]>,
  intervalMinutes: number,
  logger: Logger,
): TenantPurgeSchedule {
  if (intervalMinutes === 0) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= purge()
      .then((purged) => {
        if (purged.length === 0) return;
        const tenantIds = purged.map((tenant) => tenant.id);
        logger.info({ tenantIds }, `purged ${purged.length} deleted tenant(s) past their retention`);
      })
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'deleted tenants not purged; tried again next time'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, 0).unref();
  const timer = setInterval(run, intervalMinutes * 60_000).unref();
  return {
    stop: async () => {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
