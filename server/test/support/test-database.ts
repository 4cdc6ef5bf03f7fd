import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { type DatabaseHandle, type OpenDatabaseOptions, openDatabase } from '../../src/db/client.js';
import { recordOpen, recordStatement } from '../sql-scope/capture.js';
import { pgliteTemplate } from './pglite-template.js';

export type TestDatabase = DatabaseHandle & { url?: string };

export const testDatabaseKind = (): 'pglite' | 'postgres' =>
  process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

/** A database of its own for one test file: in-memory PGlite, or a fresh database on TEST_DATABASE_URL. */
export async function createTestDatabase(given: OpenDatabaseOptions = {}): Promise<TestDatabase> {
  const kind = testDatabaseKind();
  // Every statement the suite sends goes past the tenant-scope check (test/sql-scope, docs/scaling.md).
  const options: OpenDatabaseOptions = {
    ...given,
    onQuery: (sql, params) => {
      recordStatement(kind, sql);
      given.onQuery?.(sql, params);
    },
  };
  recordOpen(kind);
  if (kind === 'pglite')
    return openDatabase(
      { kind: 'pglite', dataDir: 'memory://' },
      { ...options, pgliteTemplate: await pgliteTemplate() },
    );
  const bare = await createBareDatabase();
  const handle = await openDatabase({ kind: 'postgres', url: bare.url, poolSize: 10 }, options);
  return {
    ...handle,
    url: bare.url,
    close: async () => {
      await handle.close();
      await bare.drop();
    },
  };
}

export type BareDatabase = { url: string; drop(): Promise<void> };

/**
 * A fresh, empty database on TEST_DATABASE_URL that this process does not open: for tests that
 * start server processes, which migrate it themselves.
 */
export async function createBareDatabase(): Promise<BareDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('a PostgreSQL test database needs TEST_DATABASE_URL');
  const name = `tms_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
