import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { openMembershipExport } from '../../src/modules/rosters/membership-export.service.js';
import { createTenantFixture, type TenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import {
  createBareDatabase,
  createTestDatabase,
  type TestDatabase,
  testDatabaseKind,
} from '../support/test-database.js';
import { capturingLogger, pausedDownload, seedStudents } from './helpers.js';

/**
 * A server whose database a test can watch and break. PGlite: a query hook that fails the
 * export's pages on cue. PostgreSQL: a pool of ONE connection, so that a request after an export
 * answers only if the export gave its connection back; and a connection of the test's own that
 * sees the server's backends.
 */
let h: TestServer;
let database: TestDatabase;
let watcher: postgres.Sql | undefined;
let failPages = false;
let pageStatements = 0;
const logs = capturingLogger();

beforeAll(async () => {
  if (testDatabaseKind() === 'pglite') {
    database = await createTestDatabase({
      onQuery: (text) => {
        if (!text.includes('to_char(')) return;
        pageStatements++;
        if (failPages) throw new Error('injected: a page of the export failed');
      },
    });
  } else {
    const bare = await createBareDatabase();
    const handle = await openDatabase({ kind: 'postgres', url: bare.url, poolSize: 1 });
    watcher = postgres(bare.url, { max: 1, onnotice: () => {} });
    database = { ...handle, url: bare.url, close: () => handle.close().then(() => bare.drop()) };
  }
  h = await startTestServer({ database, logger: logs.logger });
});
afterAll(async () => {
  await h?.close();
  await watcher?.end({ timeout: 5 });
  await database?.close();
});

/** The server's backends inside a transaction (PostgreSQL): an export holds one while it streams. */
async function serverTransactions(): Promise<number> {
  if (!watcher) return 0;
  const [row] = await watcher<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and application_name = 'tenant-membership-service'
      and xact_start is not null`;
  return row?.n ?? 0;
}

/** Far more bytes (10 MB) than the socket buffers between server and client hold: the export cannot end unread. */
async function bigTenant(): Promise<TenantFixture> {
  const t = await createTenantFixture(h);
  await seedStudents(h.db, t.tenantId, 2500, 4000);
  return t;
}

/** A request through the same pool: on PostgreSQL it waits for the pool's one connection. */
async function listAnswers(t: TenantFixture): Promise<number> {
  const res = await t.owner.api.memberships.list({ params: { tenantId: t.tenantId }, query: { limit: 1 } });
  return res.status;
}

describe('a download that is not read', () => {
  it('holds back the reading; a client that goes away stops it and frees the connection', async () => {
    const t = await bigTenant();
    expect(await serverTransactions()).toBe(0);
    const d = await pausedDownload(h, t.owner.token, t.tenantId);
    expect(d.status).toBe(200);
    expect(d.first.startsWith('\uFEFFemail,role,')).toBe(true);
    // The client reads nothing more: the export waits for it, its cursor (PostgreSQL) open.
    expect(await serverTransactions()).toBe(testDatabaseKind() === 'postgres' ? 1 : 0);
    d.abort();
    const line = await logs.next('membership export abandoned by the client');
    expect(line).toMatchObject({ filename: `${t.slug}-memberships.csv` });
    // PostgreSQL: the pool's one connection serves this only once the export gave it back.
    expect(await listAnswers(t)).toBe(200);
    expect(await serverTransactions()).toBe(0);
  });

  it('an error after the first byte cuts the connection: a broken download, never a short one', async () => {
    const t = await bigTenant();
    const d = await pausedDownload(h, t.owner.token, t.tenantId);
    expect(d.status).toBe(200);
    if (watcher) {
      // The export's session is ended under it, as a failover or an administrator would.
      await watcher`
        select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = 'tenant-membership-service'
          and xact_start is not null`;
    } else {
      failPages = true;
    }
    try {
      await expect(d.resume()).rejects.toThrow();
    } finally {
      failPages = false;
    }
    const line = await logs.next('membership export failed after its first byte');
    expect(line).toMatchObject({ level: 50, filename: `${t.slug}-memberships.csv` });
    expect(await listAnswers(t)).toBe(200);
    expect(await serverTransactions()).toBe(0);
  });
});

describe('the reading', () => {
  it.skipIf(testDatabaseKind() === 'postgres')(
    'asks the database for a batch only when the one before was taken (PGlite: a statement per page)',
    async () => {
      const t = await createTenantFixture(h);
      await seedStudents(h.db, t.tenantId, 3500);
      const requester = {
        claims: { sub: t.owner.subject, emailVerified: false },
        rule: 'tenantAdmin' as const,
        tenantId: t.tenantId,
        identified: () => {},
      };
      pageStatements = 0;
      const opened = await openMembershipExport(h.db, requester, { format: 'ndjson' });
      expect(opened.filename).toBe(`${t.slug}-memberships.ndjson`);
      expect(pageStatements).toBe(1);
      const linesOfNextChunk = async () => ((await opened.chunks.next()).value ?? '').split('\n').length - 1;
      expect(await linesOfNextChunk()).toBe(1000);
      expect(pageStatements).toBe(1);
      expect(await linesOfNextChunk()).toBe(1000);
      expect(pageStatements).toBe(2);
      await opened.chunks.return?.();
      expect(await opened.chunks.next()).toEqual({ done: true, value: undefined });
      expect(pageStatements).toBe(2);
    },
  );
});
