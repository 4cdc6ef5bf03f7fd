import type postgres from 'postgres';

/**
 * Bounds that only ever end abandoned work: our transactions and statements last milliseconds. A
 * client that vanished mid-transaction (a network cut) would otherwise keep its locks, the tenant's
 * row lock included, for as long as the server keeps its session; a statement stuck behind a lock
 * would hold its request, and its connection, until the request's deadline.
 */
export const SAFETY_TIMEOUTS = {
  idle_in_transaction_session_timeout: 5000,
  statement_timeout: 5000,
  // Below the request deadline (REQUEST_TIMEOUT_MS, 4 s): a write that waits for a tenant held by
  // a long change (a roster import) answers 503 itself, rather than reaching the deadline, after
  // which admission counts the database as not answering and refuses everyone 503 for a while.
  lock_timeout: 3000,
} as const;

/** One simple-protocol message: PgBouncer keeps the server connection since the transaction is open. */
const SET_LOCAL_TIMEOUTS = Object.entries(SAFETY_TIMEOUTS)
  .map(([name, ms]) => `set local ${name} = ${ms}`)
  .join('; ');

type Sql = postgres.Sql<Record<string, unknown>>;
type Query = ReturnType<Sql['unsafe']>;
type Settles = { resolve(value: unknown): void; reject(error: unknown): void };
type Cancellable = { canceller: ((query: Query) => Promise<void>) | null };

/**
 * The client for a pooler in transaction mode. Each transaction may run on another server
 * connection, which other clients share, so nothing is set for a session:
 *
 * - Startup parameters are refused (PgBouncer) or dropped, so the safety timeouts are set for each
 *   transaction with `SET LOCAL`, sent right after BEGIN without waiting for an answer (the
 *   patched driver does not wait for BEGIN's either: patches/README.md, pipelined-begin): BEGIN,
 *   the SET and the transaction's first statement travel together, and the SET ends with the
 *   transaction.
 * - A statement outside a transaction (a read) has no server-side bound then: it gets a client-side
 *   one, a cancel request at the statement timeout, which the pooler forwards to the server
 *   connection the statement runs on. PostgreSQL answers 57014, as for its own statement_timeout.
 *
 * Prepared statements are turned off by the caller (`prepare: false`), drizzle's named ones
 * included: the driver's option wins over the query's.
 */
export function forTransactionPooler(sql: Sql): Sql {
  const begin = (fn: (tx: postgres.TransactionSql<Record<string, unknown>>) => unknown) =>
    sql.begin((tx) => {
      // Not awaited: pipelined. A failure aborts the transaction, and the driver's transaction
      // handler keeps it and rethrows it when the callback ends.
      tx.unsafe(SET_LOCAL_TIMEOUTS).execute();
      return fn(tx);
    });
  const unsafe = (...args: Parameters<Sql['unsafe']>) => withStatementTimeout(sql.unsafe(...args));
  return new Proxy(sql, {
    get: (target, property, receiver) =>
      property === 'begin' ? begin : property === 'unsafe' ? unsafe : Reflect.get(target, property, receiver),
  });
}

/**
 * Cancels the statement if it has not settled at the statement timeout. The driver's own
 * `cancel()` drops the promise of its cancel request (a rejection would end the process), so its
 * canceller is called here, and its failure ignored: the request's deadline still answers.
 */
function withStatementTimeout(query: Query): Query {
  const timer = setTimeout(() => {
    const cancellable = query as unknown as Cancellable;
    const cancel = cancellable.canceller;
    cancellable.canceller = null;
    cancel?.(query).catch(() => {});
  }, SAFETY_TIMEOUTS.statement_timeout);
  timer.unref();
  const settles = query as unknown as Settles;
  const { resolve, reject } = settles;
  settles.resolve = (value) => {
    clearTimeout(timer);
    resolve(value);
  };
  settles.reject = (error) => {
    clearTimeout(timer);
    reject(error);
  };
  return query;
}

/**
 * A transaction's client as drizzle's migrator wants a client: its `begin` (the migrator's own
 * transaction) becomes a savepoint, and the driver's options (which drizzle reads) are shared.
 */
export function inTransaction(
  tx: postgres.TransactionSql<Record<string, unknown>>,
  options: Sql['options'],
): Sql {
  const begin = (fn: (savepoint: postgres.TransactionSql<Record<string, unknown>>) => unknown) =>
    tx.savepoint(fn);
  return new Proxy(tx, {
    get: (target, property, receiver) =>
      property === 'begin'
        ? begin
        : property === 'options'
          ? options
          : Reflect.get(target, property, receiver),
  }) as unknown as Sql;
}
