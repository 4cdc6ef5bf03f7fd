import type { Executor } from './database.js';

/**
 * Builds a drizzle prepared query once per driver client and reuses it: building a query's SQL is
 * a fair share of a request's CPU. Keyed by the client, so a replaced pool (see client.ts) gets
 * queries of its own. An executor without a client of its own (a transaction) builds it afresh.
 */
export function preparedPer<T>(build: (db: Executor) => T): (db: Executor) => T {
  const byClient = new WeakMap<object, T>();
  return (db) => {
    const client = (db as unknown as { $client?: object }).$client;
    if (!client) return build(db);
    let query = byClient.get(client);
    if (!query) {
      query = build(db);
      byClient.set(client, query);
    }
    return query;
  };
}
