import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type * as schema from './schema.js';

/** One typed handle for both drivers (PGlite and postgres.js). */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A transaction of either driver: what a function that locks rows, or must see its own writes, takes. */
export type Transaction = PgTransaction<
  PgQueryResultHKT,
  typeof schema,
  ExtractTablesWithRelations<typeof schema>
>;

/** What repositories take: a query runs the same on the database or inside a transaction. */
export type Executor = Database | Transaction;
