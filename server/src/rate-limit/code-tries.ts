import type { Database } from '../db/database.js';
import { RateLimitedError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * Redeeming a code is guessing a secret: tries are limited per caller and per client address, far
 * more tightly than other requests and apart from them (RATE_LIMIT_MAX does not apply, nor turn
 * this off). Both budgets are spent on each try, found or not.
 */
export class CodeTries {
  constructor(private readonly limiter: RateLimiter | undefined) {}

  static create(db: Database, perMinute: number, logger?: Logger): CodeTries {
    return new CodeTries(
      perMinute > 0 ? new RateLimiter(db, { max: perMinute, windowSeconds: 60 }, logger) : undefined,
    );
  }

  start(): void {
    this.limiter?.start();
  }

  async stop(): Promise<void> {
    await this.limiter?.stop();
  }

  /** Throws RateLimitedError (429, Retry-After) once either budget is spent. */
  spend(subject: string, address: string): void {
    if (!this.limiter) return;
    const bySubject = this.limiter.hit(`code:sub:${subject}`);
    const byAddress = this.limiter.hit(`code:ip:${address}`);
    const refused = [bySubject, byAddress].filter((decision) => !decision.allowed);
    if (refused.length > 0) throw new RateLimitedError(Math.max(...refused.map((d) => d.resetSeconds)));
  }
}
