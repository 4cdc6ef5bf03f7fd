import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf } from '../support/json.js';
import { histogram, metricValue, scrapeMetrics } from '../support/metrics-text.js';
import { runToExit, type Spawned, spawnServer } from '../support/spawn-server.js';
import { createBareDatabase } from '../support/test-database.js';

// The built server as an operator runs it: METRICS_PORT opens a listener of its own, and the
// public port knows nothing of /metrics.
let workdir: string;
beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-metrics-'));
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const metricsUrlOf = (server: Spawned) =>
  /metrics served at (http:\/\/\S+\/metrics)/.exec(server.output())?.[1];
const tokenOf = (server: Spawned) => /\n {2}(eyJ[\w-]+\.[\w-]+\.[\w-]+)\n/.exec(server.output())?.[1] ?? '';

async function stopped(server: Spawned) {
  server.child.kill('SIGTERM');
  return server.exit;
}

/** A few requests, then the scrape: what every variant below checks first. */
async function scrapeAfterRequests(server: Spawned) {
  const url = metricsUrlOf(server);
  if (!url) throw new Error(`no "metrics served at" line:\n${server.output()}`);
  const token = tokenOf(server);
  expect((await fetch(`${server.baseUrl}/health/live`)).status).toBe(200);
  expect(
    (await fetch(`${server.baseUrl}/me`, { headers: { authorization: `Bearer ${token}` } })).status,
  ).toBe(200);
  expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
  const scraped = await scrapeMetrics(url);
  expect(scraped.status).toBe(200);
  const requests = (route: string, status: string) =>
    histogram(scraped, 'http_request_duration_seconds', { route, method: 'GET', status }).count;
  expect(requests('/health/live', '200')).toBe(1);
  expect(requests('/me', '200')).toBe(1);
  expect(requests('unmatched', '404')).toBe(1);
  expect(metricValue(scraped, 'process_start_time_seconds')).toBeGreaterThan(0);
  expect(token).not.toBe('');
  expect(scraped.text).not.toContain(token);
  return scraped;
}

/** Both pools' `db_pool_requests_waiting`, scraped up to 50 times, 100 ms apart, until both are 0. */
async function waitingOnceSettled(url: string) {
  let waiting = { requests: -1, background: -1 };
  for (let scrape = 0; scrape < 50 && (waiting.requests !== 0 || waiting.background !== 0); scrape++) {
    if (scrape > 0) await sleep(100);
    const scraped = await scrapeMetrics(url);
    waiting = {
      requests: metricValue(scraped, 'db_pool_requests_waiting', { pool: 'requests' }),
      background: metricValue(scraped, 'db_pool_requests_waiting', { pool: 'background' }),
    };
  }
  return waiting;
}

describe('the metrics of the built server', () => {
  it('are off by default: no listener, and /metrics on the public port is a 404 like any unknown path', async () => {
    const server = await spawnServer({ PGLITE_DATA_DIR: 'memory://' }, workdir);
    try {
      expect(server.output()).not.toContain('metrics served at');
      const res = await fetch(`${server.baseUrl}/metrics`);
      expect(res.status).toBe(404);
      expect((await jsonOf(res)).error.code).toBe('ROUTE_NOT_FOUND');
    } finally {
      expect((await stopped(server)).code).toBe(0);
    }
  });

  it('are served on METRICS_PORT (0: a free port), apart from the API, on PGlite', async () => {
    const server = await spawnServer({ PGLITE_DATA_DIR: 'memory://', METRICS_PORT: '0' }, workdir);
    try {
      const url = metricsUrlOf(server);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(new URL(url ?? '').port).not.toBe(new URL(server.baseUrl).port);
      const scraped = await scrapeAfterRequests(server);
      expect(histogram(scraped, 'db_query_duration_seconds', { pool: 'requests' }).count).toBeGreaterThan(0);
      expect(metricValue(scraped, 'webhook_backlog')).toBe(0);
    } finally {
      expect((await stopped(server)).code).toBe(0);
    }
  });

  it('refuse to start on a metrics port already taken, before opening the database', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const port = String((taken.address() as AddressInfo).port);
      const refused = await runToExit(
        { PGLITE_DATA_DIR: join(workdir, 'never'), METRICS_PORT: port },
        workdir,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/could not start: .*EADDRINUSE/);
      expect(existsSync(join(workdir, 'never'))).toBe(false);
    } finally {
      taken.close();
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('show both pools on PostgreSQL', async () => {
    const bare = await createBareDatabase();
    const server = await spawnServer({ DATABASE_URL: bare.url, METRICS_PORT: '0' }, workdir);
    try {
      const scraped = await scrapeAfterRequests(server);
      const url = metricsUrlOf(server);
      expect(metricValue(scraped, 'db_pool_connections_max', { pool: 'requests' })).toBe(10);
      // WEBHOOK_CONCURRENCY (4) + 1: the delivery workers' own pool.
      expect(metricValue(scraped, 'db_pool_connections_max', { pool: 'background' })).toBe(5);
      for (const pool of ['requests', 'background']) {
        expect(metricValue(scraped, 'db_pool_connections_in_use', { pool })).toBeGreaterThanOrEqual(0);
      }
      // The server's own startup work (the purge's first run, the webhook poll) may hold a statement
      // while its pool's first connection opens, on a loaded machine for longer than the requests
      // above: scrape again until nothing waits, which an idle server must reach.
      expect(await waitingOnceSettled(url ?? '')).toEqual({ requests: 0, background: 0 });
    } finally {
      expect((await stopped(server)).code).toBe(0);
      await bare.drop();
    }
  });
});
