import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { is, Placeholder, type Query, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pg-proxy';
import type { Database } from '../../db/database.js';
import { declaredFixedStatements } from '../../db/fixed-statement.js';
import { declaredStatements } from '../../db/prepared.js';
import { insertMembership } from '../../modules/memberships/memberships.repository.js';

/**
 * One statement the code prepares under a name, or renders once as a fixed statement
 * (db/fixed-statement.ts), as drizzle renders it for PostgreSQL.
 */
export type NamedStatement = {
  name: string;
  /** The file that calls `.prepare(name)`, from the repository's root. */
  source: string;
  sql: string;
  /** $1, $2, ... in order: a placeholder's name, or what is bound in its place. */
  parameters: string[];
};

const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SOURCES = join(REPOSITORY_ROOT, 'server/src');
const PREPARED_MODULE = 'server/src/db/prepared.ts';
const FIXED_MODULE = 'server/src/db/fixed-statement.ts';
const THIS_TOOL = 'server/src/cli/sql-snapshots';

/**
 * Named statements prepared at the call rather than once by preparedPer: no builder to enumerate,
 * so each is run here on sample arguments (placeholders where the caller's values go; the driver
 * is never reached), shaped as its callers call it: insert_membership's one caller sends every
 * field (a field left out would read `default` in its place). A `.prepare('name')` of the sources
 * found by neither way fails the run.
 */
const PREPARED_AT_CALL: Record<string, (db: Database) => Promise<unknown>> = {
  insert_membership: (db) =>
    insertMembership(db, {
      tenantId: sql.placeholder('tenantId'),
      userId: sql.placeholder('userId'),
      role: sql.placeholder('role'),
      invitedDisplayName: sql.placeholder('invitedDisplayName'),
    } as never),
};

/** What the handle answers a statement that is executed: the statements are rendered, never sent. */
class NotSent extends Error {}
const notSent = async (): Promise<never> => {
  throw new NotSent('not sent: rendered for a snapshot');
};

type Capture = { name: string; query: Query; stack: string };
type PrepareQuery = (query: Query, fields: unknown, name: string | undefined, ...rest: unknown[]) => unknown;

/** The server's source files (TypeScript), from the repository's root, sorted. */
function sourceFiles(): string[] {
  return readdirSync(SOURCES, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => relative(REPOSITORY_ROOT, join(SOURCES, name)))
    .sort();
}

const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** The files that build named statements: those that call preparedPer, `.prepare(` or fixedStatement. */
function filesPreparing(): { path: string; literalNames: string[] }[] {
  return sourceFiles()
    .filter((path) => path !== PREPARED_MODULE && path !== FIXED_MODULE && !path.startsWith(THIS_TOOL))
    .map((path) => ({ path, text: withoutComments(readFileSync(join(REPOSITORY_ROOT, path), 'utf8')) }))
    .filter(({ text }) => /\bpreparedPer\(|\.prepare\(|\bfixedStatement\(/.test(text))
    .map(({ path, text }) => ({
      path,
      // The names written out in `.prepare(...)`: 'a', or cond ? 'a' : 'b'. A computed one is not.
      literalNames: [...text.matchAll(/\.prepare\(([^()]*)\)/g)].flatMap(([, args = '']) =>
        [...args.matchAll(/'([^'$]+)'|"([^"$]+)"|`([^`$]+)`/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? ''),
      ),
    }));
}

/** The first frame in our code that is not prepared.ts, fixed-statement.ts or this tool: who built the statement. */
function sourceOf(stack: string): string {
  for (const line of stack.split('\n').slice(1)) {
    const match = /\(?(?:file:\/\/)?(\/[^():]+):\d+:\d+\)?$/.exec(line.trim());
    const path = match?.[1] && relative(REPOSITORY_ROOT, match[1]);
    if (!path || path.startsWith('..') || path.split('/').includes('node_modules')) continue;
    if (path === PREPARED_MODULE || path === FIXED_MODULE || path.startsWith(THIS_TOOL)) continue;
    return path;
  }
  throw new Error(`cannot tell which file prepared this statement:\n${stack}`);
}

/**
 * A drizzle handle on no database: every `.prepare(name)` made on it is recorded with the SQL
 * drizzle renders (the same dialect as PGlite's and postgres.js's handles), and executing a
 * statement throws NotSent.
 */
function recordingDatabase(): { db: Database; captures: Capture[] } {
  const captures: Capture[] = [];
  const db = drizzle(notSent);
  const session = db._.session as unknown as { prepareQuery: PrepareQuery };
  const prepareQuery = session.prepareQuery.bind(session);
  session.prepareQuery = (query, fields, name, ...rest) => {
    if (name !== undefined) captures.push({ name, query, stack: new Error().stack ?? '' });
    const prepared = prepareQuery(query, fields, name, ...rest) as { execute: () => Promise<never> };
    prepared.execute = notSent;
    return prepared;
  };
  return { db: db as unknown as Database, captures };
}

/** A constant bound as a parameter, written as SQL would write it. */
function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  const text =
    typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : JSON.stringify(value);
  return `'${text.replaceAll("'", "''")}'`;
}

function describeParameters(query: Query, boundAtCall: boolean): string[] {
  return query.params.map((param) => {
    if (is(param, Placeholder)) return param.name;
    const value = (param as { value?: unknown }).value;
    if (is(value, Placeholder)) return value.name;
    // preparedPer builds once: what it binds is a constant of the code; at the call, the repository's value.
    return boundAtCall
      ? '(a value the repository binds at each call)'
      : `${literal(param)} (a constant of the code)`;
  });
}

/**
 * Every named statement of server/src, without a database: loads each module that prepares
 * statements (found by reading the sources), renders every builder preparedPer was given, the
 * statements of PREPARED_AT_CALL and every fixed statement declared. Fails on a duplicate name, and on a name written in the sources
 * that neither way found.
 */
export async function findNamedStatements(): Promise<NamedStatement[]> {
  const files = filesPreparing();
  for (const { path } of files) await import(pathToFileURL(join(REPOSITORY_ROOT, path)).href);

  const { db, captures } = recordingDatabase();
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const atCall = new Set<Capture>();
  try {
    for (const build of declaredStatements()) build(db);
    const builtOnce = captures.length;
    for (const run of Object.values(PREPARED_AT_CALL)) {
      await run(db).catch((error: unknown) => {
        if (!(error instanceof NotSent)) throw error;
      });
    }
    for (const capture of captures.slice(builtOnce)) atCall.add(capture);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }

  const statements = new Map<string, NamedStatement>();
  for (const capture of [...captures, ...declaredFixedStatements()]) {
    const source = sourceOf(capture.stack);
    // A builder declared by a test (or another tool) is not the server's.
    if (!files.some((file) => file.path === source)) continue;
    const already = statements.get(capture.name);
    if (already) {
      throw new Error(
        `two statements are named ${capture.name} (${already.source}, ${source}): a statement's name must be unique`,
      );
    }
    statements.set(capture.name, {
      name: capture.name,
      source,
      sql: capture.query.sql,
      parameters: describeParameters(capture.query, atCall.has(capture)),
    });
  }

  for (const name of Object.keys(PREPARED_AT_CALL)) {
    if (!statements.has(name)) {
      throw new Error(`PREPARED_AT_CALL names ${name}, which no statement is prepared as any more`);
    }
  }
  const missed = files.flatMap(({ path, literalNames }) =>
    literalNames.filter((name) => !statements.has(name)).map((name) => `${name} (${path})`),
  );
  if (missed.length > 0) {
    throw new Error(
      `named in the sources but not found: ${missed.join(', ')}. Build it with preparedPer ` +
        '(db/prepared.ts), or add it to PREPARED_AT_CALL in cli/sql-snapshots/named-statements.ts.',
    );
  }
  const unfound = files.filter(({ path }) => ![...statements.values()].some((s) => s.source === path));
  if (unfound.length > 0) {
    throw new Error(
      `no named statement found in ${unfound.map((f) => f.path).join(', ')}, which prepare some`,
    );
  }
  return [...statements.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}
