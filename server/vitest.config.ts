import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const timeouts = { hookTimeout: 60_000, testTimeout: 60_000 };
const postgresUrl = process.env.TEST_DATABASE_URL;
const reliability = Boolean(process.env.TEST_RELIABILITY);

// Every database test runs on embedded PGlite; with TEST_DATABASE_URL it runs again on that
// PostgreSQL, where the tests that need several connections or processes also run.
// The database tests sit in one folder per resource (test/memberships/, test/webhooks/, …; helpers in
// test/support/): every folder of test/ but these, so that a new resource's folder runs without a
// word here. unit/ has a project of its own, reliability/ too; process/ and tools/ run once, on PGlite
// (they start processes or read files); postgres/ only on PostgreSQL.
const DATABASE_TESTS = 'test/**/*.test.ts';
const notDatabaseTests = (...folders: string[]) => [
  ...configDefaults.exclude,
  ...['unit', 'reliability', ...folders].map((folder) => `test/${folder}/**`),
];
const projects: TestProjectInlineConfiguration[] = [
  {
    test: {
      name: 'unit',
      include: ['test/unit/**/*.test.ts'],
      ...timeouts,
    },
  },
  {
    test: {
      name: 'pglite',
      include: [DATABASE_TESTS],
      exclude: notDatabaseTests('postgres'),
      env: { TEST_DB: 'pglite' },
      ...timeouts,
    },
  },
];
// Slow suites (fuzzing, outages, races across processes): `npm run test:reliability`.
if (reliability) {
  projects.push({
    test: {
      name: 'reliability',
      include: ['test/reliability/**/*.test.ts'],
      exclude: ['test/reliability/overload.test.ts'],
      env: { TEST_DB: postgresUrl ? 'postgres' : 'pglite' },
      ...timeouts,
    },
  });
  // Alone, after the others: its figures are ratios of what the machine serves while it runs, and
  // another suite's load beside it would measure that suite.
  projects.push({
    test: {
      name: 'overload',
      include: ['test/reliability/overload.test.ts'],
      env: { TEST_DB: postgresUrl ? 'postgres' : 'pglite' },
      fileParallelism: false,
      ...timeouts,
    },
  });
}
// test/postgres/: races and several connections or processes. PGlite has one connection, which runs
// transactions one at a time: a race there cannot happen, so a missing lock would still pass.
if (postgresUrl) {
  projects.push({
    test: {
      name: 'postgres',
      include: [DATABASE_TESTS],
      exclude: notDatabaseTests('process', 'tools'),
      env: { TEST_DB: 'postgres' },
      ...timeouts,
    },
  });
} else {
  announceSkippedSuites();
}

/**
 * Without TEST_DATABASE_URL the PostgreSQL-only suites do not run: say which, and why, so that a
 * green run on PGlite is never taken for more than it proves. (CI always sets the variable.)
 */
function announceSkippedSuites() {
  const dir = (path: string) => fileURLToPath(new URL(path, import.meta.url));
  const testFiles = (path: string) =>
    readdirSync(dir(path))
      .filter((name) => name.endsWith('.test.ts'))
      .sort();
  const lines = [
    'SKIPPED, needs PostgreSQL (TEST_DATABASE_URL is not set; CI sets it, see CONTRIBUTING.md):',
    '  races, several connections or processes, outages. PGlite has one connection and runs one',
    '  transaction at a time, so no race can happen there. Every other database test runs on PGlite.',
    ...testFiles('test/postgres/').map((name) => `    test/postgres/${name}`),
  ];
  if (reliability) {
    // Those suites skip themselves with describe.skipIf(!postgresUrl()); name them here too.
    for (const name of testFiles('test/reliability/')) {
      const source = readFileSync(dir(`test/reliability/${name}`), 'utf8');
      for (const match of source.matchAll(/describe\.skipIf\(!postgresUrl\(\)\)\(\s*['`"]([^'`"]+)/g)) {
        lines.push(`    test/reliability/${name}: ${match[1]}`);
      }
    }
  }
  console.warn(`\n${lines.join('\n')}\n`);
}

// Every statement the database tests send is checked for its tenant scope once all have run
// (test/sql-scope, docs/scaling.md).
// Files at once: vitest's default is one per core less one, so a 2-core machine (CI's) ran every
// file after the other, though most of a database test's time is spent waiting on PostgreSQL or on
// a process it started, not on this CPU. TEST_WORKERS overrides.
const maxWorkers = Number(process.env.TEST_WORKERS) || Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: { globalSetup: ['./test/sql-scope/global-setup.ts'], maxWorkers, projects },
});
