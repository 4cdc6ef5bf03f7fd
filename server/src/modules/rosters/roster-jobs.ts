import type { Database } from '../../db/database.js';
import { AppError } from '../../errors/index.js';
import type { Logger } from '../../logger.js';
import { type RosterImportOrder, type RosterStage, runRosterImport } from './roster-import-run.js';
import {
  beatRosterImports,
  failStaleRosterImports,
  finishRosterImport,
  recordRosterProgress,
} from './roster-imports.repository.js';

export type RosterJob = { importId: string; order: RosterImportOrder };

export type RosterJobsOptions = {
  db: Database;
  logger: Logger;
  /** Imports this process runs at once; the others wait, QUEUED. */
  concurrency?: number;
  /** How often the heartbeat of this process's imports moves on (once start() was called). */
  heartbeatMs?: number;
  /** An unfinished import whose heartbeat is older than this belongs to a process that died. */
  staleAfterMs?: number;
  /**
   * Nobody else uses this database (PGlite: one process holds its directory): every import left
   * unfinished at start() belonged to a process that died.
   */
  exclusive?: boolean;
  /** Tests: awaited at each stage of each import, so that a test can hold one there. */
  onStage?: (importId: string, stage: RosterStage) => Promise<void> | void;
};

const HEARTBEAT_MS = 15_000;
/** Eight heartbeats missed: a process that is alive never lags that far (a PGlite import waits its turn). */
const STALE_AFTER_MS = 120_000;
const STOP_GRACE_MS = 8_000;

/**
 * Roster imports too large to do in their request, run in this process in the background. Each
 * is an import as its request would have done it (runRosterImport), RUNNING while it runs.
 *
 * A process that stops waits for its running imports a bounded time (stop); one that dies leaves
 * them QUEUED or RUNNING, with nothing applied (their transaction died with it) and a heartbeat
 * that no longer moves: GET marks such an import FAILED ("interrupted") once it is older than
 * `staleAfterMs`, and so does start() for every one, on any tenant.
 */
export class RosterJobs {
  readonly staleAfterMs: number;
  private readonly waiting: RosterJob[] = [];
  private readonly running = new Map<string, Promise<void>>();
  /** Failures being recorded (imports abandoned at stop): idle() waits for these too. */
  private readonly recording = new Set<Promise<void>>();
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  /** The next pump, after the current request's answer. */
  private scheduled: Promise<void> | undefined;

  constructor(private readonly options: RosterJobsOptions) {
    this.staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  }

  /** False once stopping: a new import is refused rather than queued to be abandoned. */
  get accepting(): boolean {
    return !this.stopping;
  }

  /** Fails the imports left behind by dead processes, then keeps this process's heartbeat going. */
  async start(): Promise<void> {
    const { db, exclusive, heartbeatMs = HEARTBEAT_MS } = this.options;
    const failed = await failStaleRosterImports(db, exclusive ? 0 : this.staleAfterMs);
    if (failed.length > 0)
      this.options.logger.warn({ imports: failed.length }, 'interrupted roster imports failed');
    this.timer ??= setInterval(() => {
      this.beat().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'roster import heartbeat'),
      );
    }, heartbeatMs).unref();
  }

  /** One heartbeat for every import this process holds (the timer's; tests call it directly). */
  beat(): Promise<void> {
    return beatRosterImports(this.options.db, [
      ...this.running.keys(),
      ...this.waiting.map((job) => job.importId),
    ]);
  }

  enqueue(job: RosterJob): void {
    this.waiting.push(job);
    // Once the 202 is on its way: on PGlite the import runs on this thread, and would hold it back.
    this.scheduled ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.scheduled = undefined;
        this.pump();
        resolve();
      }),
    );
  }

  /** Resolves once no import is running or about to, and every failure is recorded (tests). */
  async idle(): Promise<void> {
    while (this.scheduled || this.running.size > 0 || this.recording.size > 0)
      await Promise.allSettled([this.scheduled, ...this.running.values(), ...this.recording]);
  }

  /**
   * SIGTERM: nothing new starts; the waiting imports are failed now (nothing of them was done);
   * the running ones are waited for, at most `grace` (ms, or a promise). One still running then is
   * cut off with the database: rolled back, and failed as interrupted once seen stale.
   */
  async stop(grace: number | Promise<unknown> = STOP_GRACE_MS): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    const abandoned = this.waiting.splice(0);
    const failing = abandoned.map(({ importId, order }) =>
      this.fail(
        order.access.tenantId,
        importId,
        'interrupted: the server stopped before the import began; nothing was applied',
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline =
      typeof grace === 'number'
        ? new Promise<void>((resolve) => {
            timer = setTimeout(resolve, grace).unref();
          })
        : grace;
    await Promise.race([Promise.allSettled([...failing, ...this.running.values()]), deadline]);
    clearTimeout(timer);
  }

  private pump(): void {
    const concurrency = Math.max(1, this.options.concurrency ?? 2);
    while (!this.stopping && this.running.size < concurrency) {
      const job = this.waiting.shift();
      if (!job) return;
      const run = this.run(job).finally(() => {
        this.running.delete(job.importId);
        this.pump();
      });
      this.running.set(job.importId, run);
    }
  }

  private async run({ importId, order }: RosterJob): Promise<void> {
    const { db, logger } = this.options;
    const { tenantId } = order.access;
    const onStage = async (stage: RosterStage) => {
      if (stage === 'checked')
        await recordRosterProgress(db, tenantId, importId, {
          status: 'RUNNING',
          rowsRead: order.file.dataRows,
        });
      await this.options.onStage?.(importId, stage);
    };
    try {
      await recordRosterProgress(db, tenantId, importId, { status: 'RUNNING', rowsRead: 0 });
      await onStage('started');
      const row = await runRosterImport(db, importId, order, { queued: true, onStage });
      logger.info({ importId, status: row.status, rows: row.rowsTotal }, 'roster import finished');
    } catch (error) {
      // The caller lost its access, or the tenant went: said as the request would have said it.
      const known = error instanceof AppError;
      if (!known) logger.error({ err: error, importId }, 'roster import failed');
      await this.fail(
        tenantId,
        importId,
        known ? error.message : 'the import failed on our side; nothing was applied',
      );
    }
  }

  private fail(tenantId: string, importId: string, message: string): Promise<void> {
    const recorded = finishRosterImport(this.options.db, tenantId, importId, {
      status: 'FAILED',
      failure: { code: 'INTERNAL_ERROR', message },
    })
      .then(() => undefined)
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, importId }, 'a failed roster import could not be recorded'),
      )
      .finally(() => this.recording.delete(recorded));
    this.recording.add(recorded);
    return recorded;
  }
}
