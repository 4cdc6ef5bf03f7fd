import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSql } from '../../src/cli/sql-snapshots/format-sql.js';
import { SQL_SNAPSHOT_DIR, sqlSnapshots } from '../../src/cli/sql-snapshots/snapshot-files.js';

const REGENERATE = 'run `npm run sql:snapshots` and commit server/sql/';

describe('server/sql/ (the SQL of every named statement)', () => {
  it('holds what the code renders, a file per statement and no other', async () => {
    const rendered = await sqlSnapshots();
    const committed = existsSync(SQL_SNAPSHOT_DIR)
      ? readdirSync(SQL_SNAPSHOT_DIR).filter((name) => name.endsWith('.sql'))
      : [];
    const missing = [...rendered.keys()].filter((name) => !committed.includes(name));
    const leftOver = committed.filter((name) => !rendered.has(name));
    const differing = [...rendered].filter(
      ([name, text]) =>
        committed.includes(name) && readFileSync(join(SQL_SNAPSHOT_DIR, name), 'utf8') !== text,
    );
    const problems = [
      ...missing.map((name) => `missing: server/sql/${name}`),
      ...leftOver.map((name) => `left over (no such statement any more): server/sql/${name}`),
      ...differing.map(([name]) => `differs from the code: server/sql/${name}`),
    ];
    expect
      .soft(problems, `the committed SQL is not the code's: ${REGENERATE}\n  ${problems.join('\n  ')}\n`)
      .toEqual([]);
    // And the first file that differs, line by line, for the reader of a failed run.
    const [first] = differing;
    if (first) {
      const [name, text] = first;
      expect(readFileSync(join(SQL_SNAPSHOT_DIR, name), 'utf8'), `server/sql/${name}: ${REGENERATE}`).toBe(
        text,
      );
    }
  });

  it('lays a statement out by changing only whitespace outside literals', () => {
    const sql = `select "a", 'x  y' as "b" from "t" where ("a" = $1 and "b" is distinct from $2) limit $3`;
    expect(formatSql(sql)).toBe(
      [
        'select',
        '  "a",',
        `  'x  y' as "b"`,
        'from',
        '  "t"',
        'where',
        '  ("a" = $1 and "b" is distinct from $2)',
        'limit',
        '  $3',
      ].join('\n'),
    );
  });
});
