import { contract } from '@tms/contract';
import { initServer } from '@ts-rest/express';
import type { Database } from '../../db/database.js';
import { checkDatabase, healthReport } from './health.service.js';

const s = initServer();

/**
 * Marked to skip the envelope: implemented without `enveloped`, probes read bare bodies.
 *
 * Not ready once stopping: during SHUTDOWN_DRAIN_MS the process still serves what a load balancer
 * sends it, and this is how the balancer learns to send it nothing more.
 */
export const healthRouter = (db: Database, version: string, startedAt: number, isStopping = () => false) =>
  s.router(contract.health, {
    live: async () => ({ status: 200, body: { status: 'ok' } }),
    ready: async () =>
      !isStopping() && (await checkDatabase(db)).up
        ? { status: 200, body: { status: 'ok' } }
        : { status: 503, body: { status: 'unavailable' } },
    report: async () => {
      const report = await healthReport(db, version, startedAt);
      return { status: report.status === 'ok' ? 200 : 503, body: report };
    },
  });
