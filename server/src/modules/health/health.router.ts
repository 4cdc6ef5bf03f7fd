import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { publicRoute, routes } from '../../pipeline/handlers.js';
import { checkDatabase, healthReport } from './health.service.js';

/**
 * Public, and bare: probes read the body itself, not an envelope.
 *
 * Not ready once stopping: during SHUTDOWN_DRAIN_MS the process still serves what a load balancer
 * sends it, and this is how the balancer learns to send it nothing more.
 */
export const healthRoutes = (db: Database, version: string, startedAt: number, isStopping = () => false) =>
  routes(contract.health, {
    live: publicRoute(async () => ({ status: 200 as const, body: { status: 'ok' as const } })),
    ready: publicRoute(async () =>
      !isStopping() && (await checkDatabase(db)).up
        ? { status: 200 as const, body: { status: 'ok' as const } }
        : { status: 503 as const, body: { status: 'unavailable' as const } },
    ),
    report: publicRoute(async () => {
      const report = await healthReport(db, version, startedAt);
      return { status: report.status === 'ok' ? (200 as const) : (503 as const), body: report };
    }),
  });
