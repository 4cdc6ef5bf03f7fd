import { Counter } from 'prom-client';

const refusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused with 429 RATE_LIMITED: their caller was past RATE_LIMIT_MAX in the window',
});

export function countRateLimitRefusal(): void {
  refusals.inc();
}
