import { is, Param, Placeholder, type Query, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Executor } from './database.js';

/** A statement as the driver takes it: its text, and its values in the order of their `$n`. */
export type Statement = { text: string; params: unknown[] };

const dialect = new PgDialect();

/** A rendered parameter's source: the value's name and its column's encoder, or a value written in. */
type Slot = { name: string; encode?: (value: unknown) => unknown } | { name?: undefined; value: unknown };

const slotOf = (param: unknown): Slot => {
  if (is(param, Placeholder)) return { name: param.name };
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { encoder } = param;
    return { name: param.value.name, encode: (value) => encoder.mapToDriverValue(value) };
  }
  return { value: param };
};

/** A fixed statement as declared and rendered: what `npm run sql:snapshots` writes into server/sql/. */
export type DeclaredStatement = { name: string; query: Query; stack: string };

const declared: DeclaredStatement[] = [];

/** Every fixed statement declared so far, in the order the modules declared them. */
export function declaredFixedStatements(): readonly DeclaredStatement[] {
  return declared;
}

/**
 * A statement written once with drizzle's `sql` and named placeholders (`sql.placeholder`), and
 * rendered once: a run only puts its values in their places, as drizzle's prepared queries do.
 * Declared at a module's top level under `name`, its SQL is committed as server/sql/<name>.sql.
 *
 * For the statements a write sends without reading their answer (its change, its audit event:
 * db/pipelined.ts): built as `sql` fragments for each request, drizzle walked their tree on every
 * run, an `is()` check per fragment: some 60 us, a twentieth of the server's CPU, for a POST or
 * DELETE of a membership in the benchmark's profile. The text is fixed, so the driver prepares it once per
 * connection.
 */
export function fixedStatement(name: string, statement: SQL): (values: Record<string, unknown>) => Statement {
  const query = dialect.sqlToQuery(statement);
  declared.push({ name, query, stack: new Error().stack ?? '' });
  const { sql: text, params } = query;
  const slots = params.map(slotOf);
  return (values) => {
    const filled = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as Slot;
      if (slot.name === undefined) {
        filled[i] = slot.value;
        continue;
      }
      const value = values[slot.name];
      if (value === undefined) throw new Error(`no value for placeholder "${slot.name}"`);
      filled[i] = slot.encode ? slot.encode(value) : value;
    }
    return { text, params: filled };
  };
}

/** What drizzle's session holds: the driver's handle (a transaction's, in one) and the query log. */
type Session = {
  client: unknown;
  logger?: { logQuery(text: string, params: unknown[]): void };
};
/** A postgres.js statement: lazy until executed (or awaited). */
type DriverQuery = Promise<unknown[]> & { execute(): unknown };
type PostgresJs = { unsafe(text: string, params: unknown[], options: { prepare: boolean }): DriverQuery };
type Pglite = { query(text: string, params: unknown[]): Promise<{ rows: unknown[] }> };

/** drizzle's session of a database handle or a transaction. */
const sessionOf = (db: Executor): Session => (db as unknown as { _: { session: Session } })._.session;

/** The postgres.js handle under `db`; undefined on PGlite. */
export function postgresJsOf(db: Executor): PostgresJs | undefined {
  const { client } = sessionOf(db);
  return typeof (client as Partial<PostgresJs>).unsafe === 'function' ? (client as PostgresJs) : undefined;
}

/**
 * Runs a fixed statement on `db` (in its transaction, if it is one), logged in drizzle's query log,
 * prepared once per connection on PostgreSQL (unless a transaction pooler forbids it: the driver's
 * own `prepare: false` wins). On PostgreSQL it is handed to the connection before this returns, so
 * that a statement nobody awaits yet (db/pipelined.ts) still leaves ahead of the COMMIT. Its rows
 * come as the driver parses them: read for how many there are.
 */
export function runStatement(db: Executor, { text, params }: Statement): Promise<unknown[]> {
  const session = sessionOf(db);
  session.logger?.logQuery(text, params);
  const driver = postgresJsOf(db);
  if (!driver) return (session.client as Pglite).query(text, params).then((result) => result.rows);
  const query = driver.unsafe(text, params, { prepare: true });
  query.execute();
  return query;
}
