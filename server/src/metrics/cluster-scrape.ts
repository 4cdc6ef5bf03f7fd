import { AggregatorRegistry } from 'prom-client';
import type { Scrape } from './metrics-listener.js';

/**
 * For a cluster's primary: a scrape that asks every worker for its metrics (over the cluster's IPC
 * channel) and sums them, or takes the max where a metric says so (the webhook backlog, which
 * every worker counts alike). Rejects if a worker does not answer within 5 s (prom-client's bound):
 * the listener then answers 500, and Prometheus marks the target down for that scrape.
 */
export function scrapeCluster(): Scrape {
  const aggregator = new AggregatorRegistry();
  return async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() });
}

/**
 * For a worker: answers its primary's requests for this process's metrics. prom-client listens for
 * them once an AggregatorRegistry exists in the process (idempotent).
 */
export function answerPrimaryScrapes(): void {
  new AggregatorRegistry();
}
