import type { Transaction } from './database.js';
import { postgresJsOf, runStatement, type Statement, sessionOf } from './fixed-statement.js';

type Outcome = { failed: false } | { failed: true; error: unknown };

/** What postgres.js's transaction handle gives for a statement: lazy until `execute()`. */
type DriverQuery = Promise<unknown> & { execute(): unknown };
type DriverTransaction = {
  unsafe(text: string, params: unknown[], options: { prepare: boolean }): DriverQuery;
};

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
 * The statement goes to postgres.js's own transaction handle and is executed at once: its
 * transaction handler writes it one microtask later, while the driver writes the COMMIT only once
 * the transaction's callback has returned and several microtasks more. drizzle's own `execute`
 * would hand it over later, after hops that nothing bounds, so it is not used for these. On PGlite
 * (one connection in the process: no round trips to save) each is awaited before the COMMIT.
 */
export class Pipelined {
  private readonly sent: Promise<Outcome>[] = [];
  /** postgres.js's transaction handle; undefined on PGlite. */
  private readonly driver: DriverTransaction | undefined;

  constructor(private readonly tx: Transaction) {
    this.driver = postgresJsOf(tx) as DriverTransaction | undefined;
  }

  /** Sends `statement` in the transaction now; its failure is thrown by `beforeCommit` or `settle`. */
  send(statement: Statement): void {
    if (!this.driver) {
      this.sent.push(outcomeOf(runStatement(this.tx, statement)));
      return;
    }
    const { text, params } = statement;
    sessionOf(this.tx).logger?.logQuery(text, params);
    // A fixed text (db/fixed-statement.ts): the driver prepares it once per connection. (Behind a
    // transaction pooler the driver's own `prepare: false` wins.)
    const query = this.driver.unsafe(text, params, { prepare: true });
    query.execute();
    this.sent.push(outcomeOf(query));
  }

  /** Inside the transaction, before it commits: on PGlite, waits for what was sent and throws its failure. */
  async beforeCommit(): Promise<void> {
    if (!this.driver) await this.settle();
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
