import { defineConfig } from 'vitest/config';

const timeouts = { hookTimeout: 60_000, testTimeout: 60_000 };

// Every database test runs on embedded PGlite; with TEST_DATABASE_URL it runs again on that
// PostgreSQL, where the tests that need several connections or processes also run.
const projects = [
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
      include: ['test/*.test.ts', 'test/process/**/*.test.ts', 'test/tools/**/*.test.ts'],
      env: { TEST_DB: 'pglite' },
      ...timeouts,
    },
  },
];
// Slow suites (fuzzing, outages, races across processes): `npm run test:reliability`.
if (process.env.TEST_RELIABILITY) {
  projects.push({
    test: {
      name: 'reliability',
      include: ['test/reliability/**/*.test.ts'],
      env: { TEST_DB: process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite' },
      ...timeouts,
    },
  });
}
if (process.env.TEST_DATABASE_URL) {
  projects.push({
    test: {
      name: 'postgres',
      include: ['test/*.test.ts', 'test/postgres/**/*.test.ts'],
      env: { TEST_DB: 'postgres' },
      ...timeouts,
    },
  });
}

export default defineConfig({ test: { projects } });
