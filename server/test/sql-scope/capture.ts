import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';

/** One line of a worker's log: a statement seen for the first time in this worker, or a database opened. */
export type CapturedLine =
  | { kind: 'statement'; database: string; sql: string; test?: string; origin?: string; sentBy?: string }
  | { kind: 'open'; database: string; test?: string };

const SERVER_DIR = fileURLToPath(new URL('../../', import.meta.url));
const seen = new Set<string>();

/**
 * Where this run's logs go, from the global setup; undefined when it did not run (a config without
 * it), and then nothing is captured: there is nobody to check it.
 */
function runDirectory(): string | undefined {
  try {
    return inject('sqlScopeRunDir');
  } catch {
    return undefined;
  }
}

function currentTest(): string | undefined {
  const path = expect.getState().testPath;
  return path ? relative(SERVER_DIR, path) : undefined;
}

/**
 * The first frame in our own code that is not the test database's plumbing: the repository (or
 * the test) that sent the statement. Found for prepared statements, whose `execute` our code calls;
 * a query awaited directly runs from a microtask that V8's async stack traces do not lead back from
 * (check.ts then looks for a hand-written statement's text in the sources).
 */
function originOf(stack: string | undefined): { origin?: string; sentBy?: string } {
  for (const line of stack?.split('\n').slice(1) ?? []) {
    const match = /\(?(?:file:\/\/)?(\/[^():]+):(\d+):\d+\)?$/.exec(line.trim());
    if (!match?.[1]?.startsWith(SERVER_DIR) || match[1].includes('/node_modules/')) continue;
    if (match[1].includes('/sql-scope/')) continue;
    if (match[1].endsWith('/test/support/test-database.ts')) continue;
    // The frame's function, e.g. "at async listAllAuditEventsAs (file…)": a family's name (check.ts).
    const sentBy = /^at (?:async )?([\w$]+) \(/.exec(line.trim())?.[1];
    return { origin: `${relative(SERVER_DIR, match[1])}:${match[2]}`, sentBy };
  }
  return {};
}

function write(line: CapturedLine): void {
  const dir = runDirectory();
  if (!dir) return;
  // Appends of one short line each, from one process per file: no interleaving to fear.
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}

export function recordOpen(database: string): void {
  write({ kind: 'open', database, test: currentTest() });
}

/** Called with every statement the app's database handle sends; writes each distinct text once per worker. */
export function recordStatement(database: string, sql: string): void {
  const key = `${database}\0${sql}`;
  if (seen.has(key)) return;
  seen.add(key);
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack;
  Error.stackTraceLimit = limit;
  write({ kind: 'statement', database, sql, test: currentTest(), ...originOf(stack) });
}

declare module 'vitest' {
  export interface ProvidedContext {
    sqlScopeRunDir: string;
  }
}
