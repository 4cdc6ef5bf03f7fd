import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.js';

/**
 * One typed executor for both drivers (PGlite and postgres.js). A transaction is also a
 * Database, so repositories take whichever the service hands them.
 */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Executor = Database;
