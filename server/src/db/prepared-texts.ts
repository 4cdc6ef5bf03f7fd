import type postgres from 'postgres';
import { withWrappedScope } from './driver-scopes.js';

type Sql = postgres.Sql<Record<string, unknown>>;
type Options = { prepare?: boolean } & Record<string, unknown>;
type Unsafe = (text: string, params?: unknown[], options?: Options) => unknown;
type Scoped = (...args: unknown[]) => Promise<unknown>;
type Handle = { unsafe: Unsafe; savepoint?: Scoped };

/**
 * Beyond this many parameters a statement's text is taken for one of a family (an `IN` list of
 * every length): left unprepared, so that a connection does not keep one statement per length.
 */
export const MOST_PARAMETERS_PREPARED = 32;

/**
 * Lets postgres.js prepare the statements drizzle sends unnamed (`tx.execute(sql…)`, an insert or
 * update built on the spot) inside a transaction, as it does the named ones (db/prepared.ts).
 *
 * Why: postgres.js runs a statement it does not prepare, when it has parameters, in two round
 * trips: it asks the server for the parameters' types first (Describe), then binds and executes;
 * and the statements queued behind it on the connection wait for that first answer, so it also
 * breaks a transaction's pipeline. Prepared, a text is described once per connection and then
 * runs in one round trip. A tenant write's statements under its lock were paying that twice.
 *
 * Which: in a transaction, a text with parameters, at most MOST_PARAMETERS_PREPARED of them. A text
 * without any runs in one round trip anyway (and may carry values written into it); the texts
 * drizzle builds from the code are otherwise a fixed set, one per shape. The driver keeps a
 * connection's prepared statements until the connection ends (`max_lifetime`).
 *
 * Not outside transactions: the reads left unnamed there are so on purpose. Member search (`q`)
 * needs a plan made for its value: prepared, PostgreSQL moves to a generic plan after five runs,
 * which reads the whole tenant's trigram index (the benchmark's `q` page fell from 0.61 to 0.04 of
 * the floor). Not behind a transaction pooler either, where nothing may be prepared (the driver's
 * `prepare: false` wins over a statement's own, so this would change nothing there).
 */
export function preparingFixedTexts(sql: Sql): Sql {
  const begin = (sql as unknown as { begin: Scoped }).begin;
  Object.assign(sql, { begin: (...args: unknown[]) => begin(...withPreparingScope(args)) });
  return sql;
}

function preparing(handle: Handle): void {
  const unsafe = handle.unsafe;
  const savepoint = handle.savepoint;
  Object.assign(handle, {
    unsafe: (text: string, params?: unknown[], options?: Options) =>
      unsafe(text, params, preparedIfFixed(params, options)),
    ...(savepoint && { savepoint: (...args: unknown[]) => savepoint(...withPreparingScope(args)) }),
  });
}

/** `begin`'s or `savepoint`'s arguments, with the callback given a preparing transaction handle. */
const withPreparingScope = (args: unknown[]): unknown[] =>
  withWrappedScope(args, (tx: Handle) => {
    preparing(tx);
    return tx;
  });

const preparedIfFixed = (params: unknown[] | undefined, options: Options | undefined) =>
  options?.prepare === false &&
  params !== undefined &&
  params.length > 0 &&
  params.length <= MOST_PARAMETERS_PREPARED
    ? { ...options, prepare: true }
    : options;
