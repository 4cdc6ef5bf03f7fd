import cluster from 'node:cluster';
import { collectDefaultMetrics } from 'prom-client';
import type { DatabaseHandle } from '../db/client.js';
import { countPendingDeliveries } from '../modules/webhooks/delivery-backlog.repository.js';
import { answerPrimaryScrapes } from './cluster-scrape.js';
import { trackDatabasePools } from './database-metrics.js';
import { trackWebhookBacklog } from './webhook-metrics.js';

let processMetrics = false;

/**
 * Turns on what the metrics read at scrape time: the process's own (prom-client's defaults: CPU,
 * memory, event loop, GC), the database's pools, the webhook backlog. The database is opened with
 * `observeQueries: observeQueryDuration` and the app with `recordMetrics` beside this. In a cluster
 * worker, the same, and the worker answers its primary's scrapes instead of listening itself.
 */
export function enableMetrics(database: DatabaseHandle): void {
  if (!processMetrics) collectDefaultMetrics();
  processMetrics = true;
  if (database.poolUsage) trackDatabasePools(database.poolUsage);
  // Beside the requests' pool where there is one: a scrape never waits behind their transactions.
  const db = database.background ?? database.db;
  trackWebhookBacklog(() => countPendingDeliveries(db));
  if (cluster.isWorker) answerPrimaryScrapes();
}
