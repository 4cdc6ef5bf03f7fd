import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { observeQueryDuration, trackDatabasePools } from '../../src/metrics/database-metrics.js';
import { scrapeThisProcess, startMetricsListener } from '../../src/metrics/metrics-listener.js';
import { metricValue, scrapeMetrics } from '../support/metrics-text.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../support/test-database.js';

// The pool gauges against the driver itself: a pool of two, filled on purpose. postgres.js has no
// pool statistics; pool-activity.ts derives them from its statements, and this is where that is
// held to what the connections really do. PostgreSQL only: PGlite has no pool.
const postgres = testDatabaseKind() === 'postgres';
const logger = createLogger('silent');
let database: TestDatabase;
beforeAll(async () => {
  if (postgres) database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe.runIf(postgres)('pool metrics (postgres)', () => {
  it('counts connections held by transactions and by statements, and the statements waiting for one', async () => {
    const url = database.url as string;
    const small = await openDatabase(
      { kind: 'postgres', url, poolSize: 2 },
      { observeQueries: observeQueryDuration },
    );
    trackDatabasePools(() => small.poolUsage?.() ?? []);
    const metrics = await startMetricsListener({
      port: 0,
      host: '127.0.0.1',
      logger,
      scrape: scrapeThisProcess,
    });
    const pool = async () => {
      const scraped = await scrapeMetrics(metrics.url);
      const of = (name: string) => metricValue(scraped, name, { pool: 'requests' });
      return {
        max: of('db_pool_connections_max'),
        inUse: of('db_pool_connections_in_use'),
        waiting: of('db_pool_requests_waiting'),
      };
    };
    /** A transaction that has run `statement` and holds its connection until released. */
    const holding = (statement = sql`select 1`) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let running!: () => void;
      const started = new Promise<void>((resolve) => {
        running = resolve;
      });
      const done = small.db.transaction(async (tx) => {
        await tx.execute(statement);
        running();
        await released;
      });
      return { started, release, done };
    };
    /** Scrapes until `expected`: a statement reaches the pool a few turns of the event loop after it is made. */
    const until = async (expected: { inUse: number; waiting: number }) => {
      let seen = await pool();
      for (
        let turn = 0;
        turn < 50 && (seen.inUse !== expected.inUse || seen.waiting !== expected.waiting);
        turn++
      )
        seen = await pool();
      return seen;
    };
    try {
      expect(await pool()).toEqual({ max: 2, inUse: 0, waiting: 0 });

      // Both connections held by transactions, idle in them: a third statement waits.
      const [first, second] = [holding(), holding()];
      await Promise.all([first.started, second.started]);
      expect(await pool()).toEqual({ max: 2, inUse: 2, waiting: 0 });
      // drizzle sends a statement when it is awaited (then): here, at once.
      const waiting = small.db.execute(sql`select 1 as waited`).then(() => 'answered');
      expect(await until({ inUse: 2, waiting: 1 })).toEqual({ max: 2, inUse: 2, waiting: 1 });
      first.release();
      second.release();
      await Promise.all([first.done, second.done]);
      expect(await waiting).toBe('answered');
      expect(await pool()).toEqual({ max: 2, inUse: 0, waiting: 0 });

      // A statement outside a transaction holds its connection while it runs (here, blocked on a lock).
      const locker = holding(sql`select pg_advisory_xact_lock(16016)`);
      await locker.started;
      const blocked = small.db.execute(sql`select pg_advisory_xact_lock(16016)`).then(() => 'answered');
      expect(await until({ inUse: 2, waiting: 0 })).toEqual({ max: 2, inUse: 2, waiting: 0 });
      locker.release();
      await locker.done;
      expect(await blocked).toBe('answered');
      expect(await pool()).toEqual({ max: 2, inUse: 0, waiting: 0 });
    } finally {
      await metrics.close();
      await small.close();
    }
  });
});
