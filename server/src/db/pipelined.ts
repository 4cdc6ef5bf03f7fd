import type { Transaction } from './database.js';
import { postgresJsOf, runStatement, type Statement } from './fixed-statement.js';

type Outcome = { failed: false } | { failed: true; error: unknown };

/**
 * A transaction's statements whose answers its work does not need (an audit event, a delete whose
 * row was read under the lock), written to the connection at once and not waited for: on
 * PostgreSQL they reach the server together with the statements after them, the COMMIT included,
 * so a change spends one round trip less with its tenant locked.
 *
 * Safe because PostgreSQL runs a connection's statements in order: a statement that fails aborts
 * the transaction, and the COMMIT after it then ends in ROLLBACK. `settle` (after the transaction)
 * throws that failure, so the request fails with nothing committed.
 *
 * The statement goes to postgres.js's own transaction handle and is executed at once
 * (runStatement): its transaction handler writes it one microtask later, while the driver writes the COMMIT only once
 * the transaction's callback has returned and several microtasks more. drizzle's own `execute`
 * would hand it over later, after hops that nothing bounds, so it is not used for these. On PGlite
 * (one connection in the process: no round trips to save) each is awaited before the COMMIT.
 */
export class Pipelined {
  private readonly sent: Promise<Outcome>[] = [];
  /** Whether the statements reach the server with the COMMIT (postgres.js), or are run one by one (PGlite). */
  private readonly onTheWire: boolean;

  constructor(private readonly tx: Transaction) {
    this.onTheWire = postgresJsOf(tx) !== undefined;
  }

  /** Sends `statement` in the transaction now; its failure is thrown by `beforeCommit` or `settle`. */
  send(statement: Statement): void {
    this.sent.push(outcomeOf(runStatement(this.tx, statement)));
  }

  /** Inside the transaction, before it commits: on PGlite, waits for what was sent and throws its failure. */
  async beforeCommit(): Promise<void> {
    if (!this.onTheWire) await this.settle();
  }

  /**
   * After the COMMIT: every statement sent was answered before it. A failure made PostgreSQL end the
   * transaction with ROLLBACK instead, and is thrown here.
   */
  async settle(): Promise<void> {
    for (const outcome of await Promise.all(this.sent)) if (outcome.failed) throw outcome.error;
  }
}

const outcomeOf = (statement: PromiseLike<unknown>): Promise<Outcome> =>
  Promise.resolve(statement).then(
    (): Outcome => ({ failed: false }),
    (error: unknown): Outcome => ({ failed: true, error }),
  );
