import { Gauge, Histogram } from 'prom-client';
import type { PoolName, PoolUsage, QueryObserver } from '../db/pool-activity.js';

const queryDuration = new Histogram({
  name: 'db_query_duration_seconds',
  help: 'Statements by pool: seconds from their hand-over to the driver to their answer, waiting for a connection included',
  labelNames: ['pool'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

// Kept per pool: a statement builds no label object.
const observers: Record<PoolName, (seconds: number) => void> = {
  requests: queryDuration.labels({ pool: 'requests' }).observe,
  background: queryDuration.labels({ pool: 'background' }).observe,
};

/** Given to openDatabase (`observeQueries`) when metrics are on. */
export const observeQueryDuration: QueryObserver = (pool, seconds) => observers[pool](seconds);

let readUsage: (() => PoolUsage[]) | undefined;

/** Read at each scrape; none on PGlite, whose one connection makes no pool. */
const poolGauge = (name: string, help: string, read: (usage: PoolUsage) => number) =>
  new Gauge({
    name,
    help,
    labelNames: ['pool'] as const,
    collect() {
      this.reset();
      for (const usage of readUsage?.() ?? []) this.set({ pool: usage.pool }, read(usage));
    },
  });

poolGauge(
  'db_pool_connections_in_use',
  'PostgreSQL connections of the pool holding a statement or a transaction',
  (usage) => usage.inUse,
);
poolGauge(
  'db_pool_requests_waiting',
  'Statements and transactions waiting for a connection of the pool (all taken, or the one given them still connecting)',
  (usage) => usage.waiting,
);
poolGauge('db_pool_connections_max', 'The pool size: connections it may open', (usage) => usage.size);

/** The pools the gauges describe: the database handle's, when it follows them (PostgreSQL). */
export function trackDatabasePools(usage: () => PoolUsage[]): void {
  readUsage = usage;
}
