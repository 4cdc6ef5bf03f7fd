import type { ServerResponse } from 'node:http';
import type { Database, Transaction } from '../db/database.js';

/** Thrown inside the transaction's callback to end it with ROLLBACK, and caught right there. */
const ROLLBACK = Symbol('rollback');

/**
 * The transaction of a write under a tenant, which the request's access is decided in: its first
 * statements lock the tenant and read the caller's role (access/access.repository.ts), so nothing
 * the write checks can change before it commits. It spans the reading and validation of the body
 * and the handler, and ends with the handler: committed before the answer is sent, rolled back
 * on an error, or when the answer went out without it (the deadline's 503, a client gone).
 *
 * Handlers reach the database through `tx` only: on PGlite, whose one connection this transaction
 * holds, any other query would wait for it, and it for the handler.
 */
export class RequestTransaction {
  private handling = false;
  private finished = false;

  private constructor(
    readonly tx: Transaction,
    private readonly decide: (commit: boolean) => void,
    private readonly outcome: Promise<void>,
  ) {}

  static async begin(db: Database, res: ServerResponse): Promise<RequestTransaction> {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => {
      decide = resolve;
    });
    let begun!: (tx: Transaction) => void;
    const started = new Promise<Transaction>((resolve) => {
      begun = resolve;
    });
    const outcome = db
      .transaction(async (tx) => {
        begun(tx);
        if (!(await decision)) throw ROLLBACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error;
      });
    // BEGIN that fails (the database is down) rejects here, before any statement of ours ran.
    const tx = await Promise.race([started, outcome.then(() => Promise.reject(new Error('no transaction')))]);
    const transaction = new RequestTransaction(tx, decide, outcome);
    // Refused or failed before the handler ran (a bad body, say): nobody uses it any more.
    res.once('close', () => {
      if (!transaction.handling) void transaction.finish(false).catch(() => {});
    });
    return transaction;
  }

  /** Runs the handler in the transaction, then commits, unless the answer can no longer be its own. */
  async run<T>(res: ServerResponse, handler: () => Promise<T>): Promise<T> {
    this.handling = true;
    let result: T;
    try {
      result = await handler();
    } catch (error) {
      await this.finish(false).catch(() => {});
      throw error;
    }
    await this.finish(!res.headersSent && !res.destroyed);
    return result;
  }

  /** Rolls back before the handler ran: the request goes on in another transaction, or none. */
  abandon(): Promise<void> {
    return this.finish(false);
  }

  private async finish(commit: boolean): Promise<void> {
    if (!this.finished) {
      this.finished = true;
      this.decide(commit);
    }
    await this.outcome;
  }
}
