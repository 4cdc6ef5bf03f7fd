import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';

/**
 * One typed handle for both drivers (PGlite and postgres.js). Without drizzle's relational API
 * (`db.query.*`, unused here): given the schema, drizzle builds a query builder per table for the
 * database and again for every transaction it opens, a twentieth of a write's CPU.
 */
export type Database = PgDatabase<PgQueryResultHKT>;

/** A transaction of either driver: what a function that locks rows, or must see its own writes, takes. */
export type Transaction = PgTransaction<
  PgQueryResultHKT,
  Record<string, never>,
  ExtractTablesWithRelations<Record<string, never>>
>;

/** What repositories take: a query runs the same on the database or inside a transaction. */
export type Executor = Database | Transaction;
