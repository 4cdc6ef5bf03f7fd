import { Counter, Gauge } from 'prom-client';

export const DELIVERY_OUTCOMES = ['delivered', 'retrying', 'failed', 'event_purged'] as const;
/**
 * What a recorded attempt came to: a 2xx; a failure tried again later; a failure that ended the
 * retry schedule (FAILED); or no send at all, the event purged meanwhile (FAILED).
 */
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

const deliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts recorded by this process, by outcome (delivered, retrying, failed, event_purged)',
  labelNames: ['outcome'] as const,
});
const counters = Object.fromEntries(
  DELIVERY_OUTCOMES.map((outcome) => {
    const child = deliveries.labels({ outcome });
    // Every outcome shown from the start, at 0: a rate over a series that appears later misses its first step.
    child.inc(0);
    return [outcome, child];
  }),
) as Record<DeliveryOutcome, { inc(value?: number): void }>;

/** Called once the outcomes are committed: an attempt whose recording failed is sent again later. */
export function countDeliveries(outcome: DeliveryOutcome, count = 1): void {
  if (count > 0) counters[outcome].inc(count);
}

/** A scrape waits this long for the count, then answers without it (NaN). */
export const BACKLOG_TIMEOUT_MS = 1000;
let readBacklog: (() => Promise<number>) | undefined;

new Gauge({
  name: 'webhook_backlog',
  help: 'Webhook deliveries waiting to be sent (PENDING, every endpoint), counted at scrape time up to a cap; NaN when the count failed or was slow',
  // Every process of a cluster counts the same table.
  aggregator: 'max',
  async collect() {
    this.set(readBacklog ? await withinTimeout(readBacklog(), BACKLOG_TIMEOUT_MS) : Number.NaN);
  },
});

/** What the backlog gauge counts at each scrape: a database down, or slow, never fails the scrape. */
export function trackWebhookBacklog(count: () => Promise<number>): void {
  readBacklog = count;
}

async function withinTimeout(counting: Promise<number>, ms: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => {
    timer = setTimeout(() => resolve(Number.NaN), ms);
  });
  try {
    return await Promise.race([counting.catch(() => Number.NaN), late]);
  } finally {
    clearTimeout(timer);
  }
}
