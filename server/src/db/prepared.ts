import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Executor } from './database.js';

/**
 * A drizzle prepared query (`.prepare(name)`), built once per database handle: building a query's
 * SQL is a fair share of a short request's CPU, and a named query is prepared once per connection
 * by the driver (one round trip and one plan afterwards). Inside a transaction, which is a new
 * object each time, the query is built afresh; the driver still reuses the connection's statement.
 */
export function preparedPer<T>(build: (db: Executor) => T): (db: Executor) => T {
  const byDatabase = new WeakMap<Executor, T>();
  return (db) => {
    if (db instanceof PgTransaction) return build(db);
    let query = byDatabase.get(db);
    if (!query) {
      query = build(db);
      byDatabase.set(db, query);
    }
    return query;
  };
}
