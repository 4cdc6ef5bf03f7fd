import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { QueryObserver } from './pool-activity.js';

type Run = (...args: unknown[]) => Promise<unknown>;

/**
 * Times PGlite's statements as pool-activity.ts times postgres.js's: drizzle sends every statement
 * through `query`, on the database or on a transaction's object. PGlite has one connection, so no
 * pool to describe: the time a statement waits for it is part of its duration.
 */
export function timePgliteQueries(client: PGlite, observe: QueryObserver): void {
  const timed = (run: Run): Run => {
    return (...args) => {
      const started = performance.now();
      return run(...args).finally(() => observe('requests', (performance.now() - started) / 1000));
    };
  };
  const query = client.query.bind(client) as unknown as Run;
  const transaction = client.transaction.bind(client);
  Object.assign(client, {
    query: timed(query),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>) =>
      transaction((tx) => fn(Object.assign(tx, { query: timed(tx.query as unknown as Run) }))),
  });
}
