import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER_DIR = fileURLToPath(new URL('../../', import.meta.url));
// The service first, then the tests; not the check's own files, whose examples would match.
const SEARCHED = ['src', 'test'].map((dir) => join(SERVER_DIR, dir));
const isCheck = (path: string) => path.includes('sql-scope');

let sources: { path: string; lines: string[] }[] | undefined;

function sourceFiles(): { path: string; lines: string[] }[] {
  sources ??= SEARCHED.flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts') && !isCheck(name))
      .map((name) => ({
        path: relative(SERVER_DIR, join(dir, name)),
        lines: readFileSync(join(dir, name), 'utf8').split('\n'),
      })),
  );
  return sources;
}

/**
 * Where a hand-written statement (an sql`…` template) sits in server/src or server/test: the file
 * and line of its longest line. A statement the query builder wrote has no such line; the capture's
 * origin and the tests that sent it are all there is then.
 */
export function sourceOf(sql: string): string | undefined {
  const longest = sql
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length >= 32 && !/\$\d/.test(line))
    .sort((a, b) => b.length - a.length)[0];
  if (!longest) return undefined;
  for (const { path, lines } of sourceFiles()) {
    const index = lines.findIndex((line) => line.includes(longest));
    if (index >= 0) return `${path}:${index + 1}`;
  }
  return undefined;
}
