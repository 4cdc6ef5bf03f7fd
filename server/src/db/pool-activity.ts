import type postgres from 'postgres';
import { withWrappedScope } from './driver-scopes.js';

type Sql = postgres.Sql<Record<string, unknown>>;
type TransactionSql = postgres.TransactionSql<Record<string, unknown>>;

export type PoolName = 'requests' | 'background';
/** Told of every statement's duration: from its hand-over to the driver to its answer, in seconds. */
export type QueryObserver = (pool: PoolName, seconds: number) => void;
/** One pool at one instant: its connections (size), those in use, and the statements waiting for one. */
export type PoolUsage = { pool: PoolName; size: number; inUse: number; waiting: number };

/**
 * What postgres.js 3.4.9 keeps on each statement (its `Query`, a promise): `executed` once handed to
 * the pool; `state`, once sent on a connection, that connection's `{ pid, secret }` object, one per
 * connection slot for the pool's whole life; `resolve` and `reject`, which the driver calls to
 * settle it (pooler.ts wraps them too). The driver has no pool statistics: these are what it has.
 */
type DriverQuery = {
  executed: boolean;
  state: object | null;
  resolve(value: unknown): void;
  reject(error: unknown): void;
};
type Unsafe = (...args: unknown[]) => DriverQuery;
type Scoped = (...args: unknown[]) => Promise<unknown>;

/**
 * Times a pool's statements and tells, when asked, how busy the pool is. It replaces the pool's
 * own `unsafe` and `begin` (drizzle's only ways in), and a transaction's `unsafe` and `savepoint`,
 * so that the driver's `begin`, which sends its BEGIN through the pool's `unsafe`, is seen too. The
 * pool object stays the same: nothing keyed by it, nor the pooler's proxy over it, changes.
 *
 * - In use: the connections holding a statement outside a transaction (several pipelined on one
 *   count once), or a transaction (from its BEGIN's sending to its end, idle in it or not).
 * - Waiting: statements outside transactions, BEGINs included, handed to the pool and not yet on a
 *   connection: every connection was taken, or the one given them is still connecting.
 *
 * Counted when asked (a scrape), not per statement: a statement costs a set entry and a timing.
 * A cursor (which replaces a statement's `resolve`) is never timed; one opened outside a
 * transaction would stay "in use": the service opens them in transactions only (the export).
 */
export class PoolActivity {
  /** Statements outside transactions, BEGINs included, handed to the pool and not answered. */
  private readonly pending = new Set<DriverQuery>();
  /** The BEGIN of each transaction under way: its connection is the transaction's until the end. */
  private readonly transactions = new Set<DriverQuery>();
  /** Set while the driver's `begin` sends its BEGIN (synchronously, within our call of it). */
  private beginning = false;
  private begun: DriverQuery | undefined;

  constructor(
    readonly pool: PoolName,
    private readonly size: number,
    private readonly observe: QueryObserver,
  ) {}

  /** Times `sql`'s statements (the pool this activity describes), and follows its connections. */
  instrument(sql: Sql): this {
    const unsafe = sql.unsafe as unknown as Unsafe;
    const begin = sql.begin as unknown as Scoped;
    Object.assign(sql, {
      unsafe: (...args: unknown[]) => {
        const query = this.timed(unsafe(...args), true);
        if (this.beginning) this.begun = query;
        return query;
      },
      begin: (...args: unknown[]) => {
        this.beginning = true;
        let transaction: Promise<unknown>;
        try {
          transaction = begin(...this.inTransaction(args));
        } finally {
          this.beginning = false;
        }
        const opening = this.begun;
        this.begun = undefined;
        if (opening) {
          this.transactions.add(opening);
          const ended = () => this.transactions.delete(opening);
          transaction.then(ended, ended);
        }
        return transaction;
      },
    });
    return this;
  }

  usage(): PoolUsage {
    const connections = new Set<object>();
    let waiting = 0;
    for (const query of this.pending) {
      if (query.state) connections.add(query.state);
      else if (query.executed) waiting++;
    }
    for (const opening of this.transactions) if (opening.state) connections.add(opening.state);
    return { pool: this.pool, size: this.size, inUse: connections.size, waiting };
  }

  /** `begin`'s or `savepoint`'s arguments, with the callback given a timed transaction. */
  private inTransaction(args: unknown[]): unknown[] {
    return withWrappedScope(args, (tx: TransactionSql) => this.timedTransaction(tx));
  }

  private timedTransaction(tx: TransactionSql): TransactionSql {
    const unsafe = tx.unsafe as unknown as Unsafe;
    const savepoint = tx.savepoint as unknown as Scoped;
    return Object.assign(tx, {
      unsafe: (...args: unknown[]) => this.timed(unsafe(...args), false),
      savepoint: (...args: unknown[]) => savepoint(...this.inTransaction(args)),
    });
  }

  private timed(query: DriverQuery, pooled: boolean): DriverQuery {
    const started = performance.now();
    const { resolve, reject } = query;
    if (pooled) this.pending.add(query);
    const settled = () => {
      if (pooled) this.pending.delete(query);
      this.observe(this.pool, (performance.now() - started) / 1000);
    };
    query.resolve = (value) => {
      settled();
      resolve(value);
    };
    query.reject = (error) => {
      settled();
      reject(error);
    };
    return query;
  }
}
