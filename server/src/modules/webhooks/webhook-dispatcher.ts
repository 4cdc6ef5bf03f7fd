import type { DatabaseHandle } from '../../db/client.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { type AttemptResult, type AttemptSettings, attemptHeads } from './delivery-attempt.js';
import { createDeliveryClaims, type DeliveryClaims } from './delivery-claims.js';
import { findDueEndpoints } from './delivery-queue.repository.js';
import { TOTAL_TIMEOUT_MS } from './delivery-sender.js';
import type { Resolver, TargetPolicy } from './target-address.js';
import { TargetAgents } from './target-agents.js';

export type DispatcherOptions = {
  db: Database;
  kind: DatabaseHandle['kind'];
  policy: TargetPolicy;
  /** How often an idle worker looks for due deliveries (WEBHOOK_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** Workers, so endpoints delivered to at once, in this process (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  logger?: Logger;
  /** Name resolution for the address checks (tests stub it). */
  resolve?: Resolver;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** The retry schedule's jitter source (tests pass `() => 0.5` for the exact schedule). */
  random?: () => number;
};

/**
 * Due endpoints looked at per poll: more than the workers of a few processes hold at once, so a
 * worker finds a free one past those taken.
 */
const CANDIDATES = 64;
/** Deliveries in a row to one endpoint by one worker before it looks at the others again. */
const STREAK = 20;
/** A batch (see attempt) ends after this long, so that its outcomes are committed soon. */
const BATCH_MS = 1000;
/** stop() waits this long for sends in flight: one full send, and its recording. */
const STOP_GRACE_MS = TOTAL_TIMEOUT_MS + 2_000;

/**
 * The webhook delivery worker of one process. Every process runs one (unless
 * WEBHOOK_POLL_INTERVAL_MS is 0); they share the outbox through the claims, which keep one
 * delivery in flight per endpoint across all of them. `concurrency` workers each loop: find the
 * endpoints whose head is due, claim one that nobody holds, attempt its head, record the outcome;
 * when there is nothing to do, wait `pollIntervalMs`.
 *
 * Tests drive it without timers: `runOnce({ now })` and `drain({ now })` deliver what is due at
 * an instant of their choosing (the clock of the schedule, not of the signatures).
 */
export class WebhookDispatcher {
  private readonly claims: DeliveryClaims;
  private readonly settings: AttemptSettings;
  private running = false;
  private stopping = false;
  /** Wakes the workers that wait for their next poll (stop()). */
  private readonly sleepers = new Set<() => void>();
  /** Attempts whose send has started: stop() waits for these to be recorded, and only these. */
  private readonly sending = new Set<Promise<unknown>>();
  private readonly agents = new TargetAgents();

  constructor(private readonly options: DispatcherOptions) {
    this.claims = createDeliveryClaims(options.db, options.kind);
    this.settings = {
      sender: {
        policy: options.policy,
        resolve: options.resolve,
        connectTimeoutMs: options.connectTimeoutMs,
        totalTimeoutMs: options.totalTimeoutMs,
        agents: this.agents,
      },
      random: options.random,
    };
  }

  /** Starts the workers; idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    // Not awaited by stop(): a worker only looking for work ends on its own once running is false.
    for (let n = 0; n < Math.max(1, this.options.concurrency); n++) void this.work();
  }

  /**
   * No new attempt starts; waits for the sends in flight to be recorded, at most `graceMs`
   * (SIGTERM: the database must not close under a send whose outcome is being recorded). One still
   * running past it is rolled back with the connection and sent again later: at least once. A
   * worker that is only looking for work (a query on a database that does not answer, in an
   * outage) is not waited for: the shutdown must not last longer for it.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopping = true;
    for (const wake of this.sleepers) wake();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.sending]), timeout]);
    clearTimeout(timer);
    this.agents.destroy();
  }

  /**
   * One claim per worker (up to `concurrency` endpoints at once) of what is due at `now`, each
   * sending one delivery, or up to `run` in a row as the background workers do; answers how many
   * claims attempted something. Errors are thrown, not logged: tests see them.
   */
  async runOnce({ now = new Date(), run = 1 }: { now?: Date; run?: number } = {}): Promise<number> {
    const lanes = Math.max(1, this.options.concurrency);
    const attempts = await Promise.all(
      Array.from({ length: lanes }, () => this.attemptNext(now, undefined, run)),
    );
    return attempts.filter(({ result }) => result.kind !== 'idle').length;
  }

  /**
   * Attempts until nothing is due at `now`: every delivery due then is sent, each endpoint's in
   * order; those that fail are due again later (the schedule), so this ends. Answers the claims
   * that attempted something (with `run` 1, the default: the attempts).
   */
  async drain({ now = new Date(), run = 1 }: { now?: Date; run?: number } = {}): Promise<number> {
    let total = 0;
    for (;;) {
      const attempts = await this.runOnce({ now, run });
      if (attempts === 0) return total;
      total += attempts;
    }
  }

  /**
   * Claims the first due endpoint that nobody holds, and attempts its head. `preferred` first:
   * the endpoint this worker just delivered to, whose next delivery is likely due (a queue that
   * drains costs no search per delivery).
   */
  private async attemptNext(
    now: Date,
    preferred?: string,
    batch = 1,
  ): Promise<{ endpointId?: string; result: AttemptResult }> {
    if (preferred) {
      const result = await this.attempt(preferred, now, batch);
      if (result.kind !== 'idle') return { endpointId: preferred, result };
    }
    for (const endpointId of await findDueEndpoints(this.options.db, now, CANDIDATES)) {
      if (endpointId === preferred) continue;
      const result = await this.attempt(endpointId, now, batch);
      if (result.kind !== 'idle') return { endpointId, result };
    }
    return { result: { kind: 'idle' } };
  }

  /**
   * Idle if somebody else holds the endpoint, or its head is not due (any more). With `batch` > 1
   * (the background workers; runOnce and drain make one attempt each), the claim is kept for the
   * next heads while each is delivered, up to `batch` of them or BATCH_MS: one claim, one read and
   * one write for the lot (on PostgreSQL one transaction), instead of a claim, a read and a write
   * per delivery.
   */
  private async attempt(endpointId: string, now: Date, batch = 1): Promise<AttemptResult> {
    // A worker between its search and its claim when stop() came: no new send starts.
    if (this.stopping) return { kind: 'idle' };
    let result = { kind: 'idle' } as AttemptResult;
    // attemptHeads reads onSend when its send starts, after the claim: `tracked` exists by then.
    const settings: AttemptSettings = { ...this.settings };
    const tracked: Promise<boolean> = this.claims
      .withEndpoint(endpointId, async (session) => {
        const started = performance.now();
        const enough = () => this.stopping || performance.now() - started > BATCH_MS;
        result = await attemptHeads(session, endpointId, now, settings, { max: batch, enough });
      })
      .finally(() => this.sending.delete(tracked));
    settings.onSend = () => this.sending.add(tracked);
    await tracked;
    this.log(endpointId, result);
    return result;
  }

  private async work(): Promise<void> {
    let preferred: string | undefined;
    let streak = 0;
    while (this.running) {
      let next: Awaited<ReturnType<WebhookDispatcher['attemptNext']>> = { result: { kind: 'idle' } };
      // After a streak on one endpoint, the search again: the longest waiting come first.
      const first = streak < STREAK ? preferred : undefined;
      try {
        next = await this.attemptNext(new Date(), first, STREAK);
      } catch (error) {
        // The database is away (or the attempt's transaction failed: it is sent again later).
        this.options.logger?.warn({ err: error }, 'webhook delivery worker: attempt failed; retrying');
      }
      streak = first && next.endpointId === first ? streak + 1 : 0;
      preferred = next.endpointId;
      if (next.result.kind === 'idle') await this.sleep(this.options.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  private log(endpointId: string, result: AttemptResult) {
    const logger = this.options.logger;
    if (!logger || result.kind === 'idle') return;
    if (result.kind === 'event-gone') {
      logger.warn(
        { endpointId, deliveryId: result.deliveryId },
        'webhook delivery FAILED: its event was purged',
      );
      return;
    }
    if (result.kind !== 'sent') return;
    const { outcome, deliveryId, disabled } = result;
    const fields = { endpointId, deliveryId, statusCode: outcome.statusCode, error: outcome.error };
    if (outcome.delivered) logger.debug(fields, 'webhook delivered');
    else logger.info(fields, 'webhook attempt failed');
    if (disabled) logger.warn({ endpointId }, 'webhook endpoint disabled: failing for more than a day');
  }
}
