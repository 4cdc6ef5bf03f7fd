import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Executor } from './database.js';
import { withRowMapper } from './row-mapper.js';

/** What a drizzle prepared query runs on: the driver's client, the one part a transaction changes. */
type OnClient = { client: unknown };

/** The session drizzle runs a transaction's queries on: its class says which driver, `client` which connection. */
const sessionOf = (tx: object) => (tx as { session: { client: unknown } }).session;

/** What preparedPer builds a statement with. */
export type StatementBuilder = (db: Executor) => object;

const builders: StatementBuilder[] = [];

/**
 * Every builder given to preparedPer so far, in the order the modules declared them: what
 * `npm run sql:snapshots` (cli/sql-snapshots.ts) renders into server/sql/, without a database.
 */
export function declaredStatements(): readonly StatementBuilder[] {
  return builders;
}

/** The statement, its rows mapped by a mapper made for it (row-mapper.ts). */
function builtOnce<T extends object>(build: (db: Executor) => T, db: Executor): T {
  const query = build(db);
  withRowMapper(query);
  return query;
}

/**
 * A drizzle prepared query (`.prepare(name)`), built once per database handle: building a query's
 * SQL is a fair share of a short request's CPU, and a named query is prepared once per connection
 * by the driver (one round trip and one plan afterwards).
 *
 * A transaction is a new handle each time, on the connection it holds. Its queries are built once
 * too, from the first transaction, and each later one runs a copy whose client is its own
 * connection: the SQL text, its parameters and its result mapping are the same (drizzle's prepared
 * queries of both drivers keep the connection in `client`; db/prepared.test checks it stays so).
 */
export function preparedPer<T extends object>(build: (db: Executor) => T): (db: Executor) => T {
  builders.push(build);
  const byDatabase = new WeakMap<Executor, T>();
  const inTransactions = new Map<unknown, T>();
  return (db) => {
    if (db instanceof PgTransaction) {
      const { client, constructor: driver } = sessionOf(db);
      const built = inTransactions.get(driver);
      // Not a prepared query (a builder run as built): it holds its session, so it is built again.
      if (built && !('client' in built)) return build(db);
      if (!built) {
        const query = builtOnce(build, db);
        inTransactions.set(driver, query);
        return query;
      }
      const copy = Object.assign(Object.create(Object.getPrototypeOf(built)) as T, built);
      (copy as unknown as OnClient).client = client;
      return copy;
    }
    let query = byDatabase.get(db);
    if (!query) {
      query = builtOnce(build, db);
      byDatabase.set(db, query);
    }
    return query;
  };
}

/**
 * A query built once (as preparedPer builds it) that the driver sends unnamed, so that PostgreSQL
 * plans it for its values on every run: a prepared statement moves to a generic plan after five
 * runs, and for member search (`q`) that plan cannot tell a rare name from a common one (at a
 * million members it read the tenant's whole trigram index: 43 ms against 0.3 ms). Building it
 * anew for each request instead cost more CPU than the rest of the page (drizzle's SQL builder).
 *
 * postgres.js's prepared query takes `prepare` from whether it was given a name; PGlite's prepares
 * nothing either way. In a transaction, prepared-texts.ts prepares a short text all the same.
 */
export function plannedEachRun<T extends object>(query: T): T {
  if ('prepare' in query && typeof query.prepare === 'boolean') Object.assign(query, { prepare: false });
  return query;
}
