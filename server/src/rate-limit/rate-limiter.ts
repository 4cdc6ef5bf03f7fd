import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { countRateLimitRefusal } from '../metrics/rate-limit-metrics.js';
import { addHits, deleteWindowsBefore } from './rate-limit.repository.js';

export type RateLimitSettings = { max: number; windowSeconds: number; flushMs?: number };
export type RateLimitDecision = { allowed: boolean; limit: number; remaining: number; resetSeconds: number };

/**
 * Fixed-window limits per caller, shared across processes through the database without a write on
 * the request path: each process counts locally and, every `flushMs`, adds its counts to the
 * shared table and reads back the totals. A caller spread over N processes can overshoot by at
 * most what N processes see of it in one flush interval; a single process is exact.
 */
export class RateLimiter {
  private windowStart = 0;
  /** Totals across processes, as of the last flush, plus this process's hits since. */
  private readonly known = new Map<string, number>();
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushes = 0;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly settings: RateLimitSettings,
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A tenant's directory syncs in bursts of thousands of requests (one per user and group): its
   * budget is the tenant's own, at least 50 a second over the window, whatever a person's is.
   */
  hitDirectory(tenantId: string): RateLimitDecision {
    const { max, windowSeconds } = this.settings;
    return this.hit(`scim:${tenantId}`, Math.max(max, 50 * windowSeconds));
  }

  /** `max`: a budget of its own for this key's kind (hitDirectory's). */
  hit(key: string, max = this.settings.max): RateLimitDecision {
    const nowSeconds = Math.floor(this.now() / 1000);
    this.rollWindow(nowSeconds);
    const count = (this.known.get(key) ?? 0) + 1;
    this.known.set(key, count);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    const { windowSeconds } = this.settings;
    if (count > max) countRateLimitRefusal();
    return {
      allowed: count <= max,
      limit: max,
      remaining: Math.max(0, max - count),
      resetSeconds: Math.max(1, this.windowStart + windowSeconds - nowSeconds),
    };
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.settings.flushMs ?? 250).unref();
  }

  /** Shares the last counts, but never holds a shutdown for long on a database that is gone. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
    clearTimeout(timer);
  }

  /** Shares this process's counts; a database that is down only delays the sharing. */
  flush(): Promise<void> {
    this.flushing ??= this.share().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async share(): Promise<void> {
    if (this.pending.size === 0) return;
    const windowStart = this.windowStart;
    const batch = [...this.pending.entries()].map(([key, hits]) => ({ key, hits }));
    this.pending.clear();
    try {
      const totals = await addHits(this.db, windowStart, batch);
      if (windowStart !== this.windowStart) return;
      for (const { key, hits } of totals) this.known.set(key, hits + (this.pending.get(key) ?? 0));
      if (++this.flushes % 240 === 0)
        await deleteWindowsBefore(this.db, windowStart - this.settings.windowSeconds);
    } catch (error) {
      if (windowStart === this.windowStart) {
        for (const { key, hits } of batch) this.pending.set(key, (this.pending.get(key) ?? 0) + hits);
      }
      this.logger?.warn({ err: error }, 'rate-limit counts not shared; will retry');
    }
  }

  private rollWindow(nowSeconds: number): void {
    const windowStart = nowSeconds - (nowSeconds % this.settings.windowSeconds);
    if (windowStart === this.windowStart) return;
    this.windowStart = windowStart;
    this.known.clear();
    this.pending.clear();
  }
}
