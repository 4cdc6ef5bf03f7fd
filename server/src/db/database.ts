import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.js';

/**
 * One typed executor for both drivers (PGlite and postgres.js). A transaction is also a
 * Database, so repositories take whichever the service hands them.
 */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Executor = Database;

/**
 * A member of `db` as a proxy standing in for it hands it out: methods bound to `db`, own
 * properties as they are. `$client` (postgres.js's `sql`, a function) must stay one object: it
 * keys the prepared-query cache (prepared.ts), and a bound copy made on each access missed it.
 */
export function memberOf(db: Database, property: string | symbol): unknown {
  const value: unknown = Reflect.get(db, property, db);
  return typeof value === 'function' && !Object.hasOwn(db, property) ? value.bind(db) : value;
}
