import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createTokenVerifier } from '../../src/auth/token-verifier.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { createLogger } from '../../src/logger.js';
import { observeQueryDuration } from '../../src/metrics/database-metrics.js';
import { enableMetrics } from '../../src/metrics/enable-metrics.js';
import {
  type MetricsListener,
  scrapeThisProcess,
  startMetricsListener,
} from '../../src/metrics/metrics-listener.js';
import { RateLimiter } from '../../src/rate-limit/rate-limiter.js';
import { createActor, createTenantFixture } from '../support/factories.js';
import { offlineResolver, startTestServer, TEST_SECRET, type TestServer } from '../support/harness.js';
import {
  histogram,
  labelValues,
  metricValue,
  samplesOf,
  scrapeMetrics,
  typeOf,
} from '../support/metrics-text.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../support/test-database.js';
import {
  afterWhatWasRecorded,
  insertEndpoint,
  insertTenantRow,
  recordEvents,
  testDispatcher,
} from '../support/webhook-delivery-fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// The app as main.ts runs it with METRICS_PORT set: requests timed, statements timed, the pools and
// the backlog read at scrape time, served on a listener of its own. The data is made through the
// harness's server on the same database, whose requests are not counted.
const RATE_LIMIT = 3;
let database: TestDatabase;
let h: TestServer;
let api: Server;
let baseUrl: string;
let metrics: MetricsListener;
let receiver: WebhookReceiver;

beforeAll(async () => {
  database = await createTestDatabase({ observeQueries: observeQueryDuration });
  h = await startTestServer({ database });
  enableMetrics(database);
  const logger = createLogger('silent');
  const app = createApp({
    db: database.db,
    verifyToken: createTokenVerifier({ secret: TEST_SECRET }),
    logger,
    version: 'test',
    // Counted at each request, shared only when flushed: the test never starts its timer.
    rateLimiter: new RateLimiter(database.db, { max: RATE_LIMIT, windowSeconds: 3600 }),
    webhooks: { allowPrivateNetworks: false, requireHttps: false, resolve: offlineResolver },
    recordMetrics: true,
  });
  api = createHttpServer(app).listen(0, '127.0.0.1');
  await once(api, 'listening');
  baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  metrics = await startMetricsListener({ port: 0, host: '127.0.0.1', logger, scrape: scrapeThisProcess });
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await metrics?.close();
  api?.closeAllConnections();
  await new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve()));
  await receiver?.close();
  await h?.close();
  await database?.close();
});

const get = (path: string, token?: string) =>
  fetch(`${baseUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe(`metrics (${testDatabaseKind()})`, () => {
  it('counts and times requests by route template, method and status, and never shows who or what was asked', async () => {
    const tenant = await createTenantFixture(h);
    const reader = await createActor(h);
    const spender = await createActor(h);
    const membership = `/tenants/${tenant.tenantId}/memberships/${tenant.ownerMembershipId}`;
    const stranger = `/tenants/${tenant.tenantId}/memberships/${randomUUID()}`;
    const statuses = [
      (await get(membership, tenant.owner.token)).status,
      (await get(membership, tenant.owner.token)).status,
      (await get(stranger, tenant.owner.token)).status,
      (await get('/me', reader.token)).status,
      (await get('/me')).status,
      (await get(`/no/such/route/${tenant.owner.email}?token=${tenant.owner.token}`)).status,
      (await get('/metrics')).status,
    ];
    expect(statuses).toEqual([200, 200, 404, 200, 401, 404, 404]);
    const spent: number[] = [];
    for (let i = 0; i <= RATE_LIMIT; i++) spent.push((await get('/me', spender.token)).status);
    expect(spent).toEqual([200, 200, 200, 429]);

    const scraped = await scrapeMetrics(metrics.url);
    expect(scraped.status).toBe(200);
    expect(scraped.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(typeOf(scraped, 'http_request_duration_seconds')).toBe('HISTOGRAM');
    const requests = (route: string, status: string, method = 'GET') =>
      histogram(scraped, 'http_request_duration_seconds', { route, method, status }).count;
    const template = '/tenants/:tenantId/memberships/:tenantMembershipId';
    expect(requests(template, '200')).toBe(2);
    // A matched route's own 404 (no such membership) keeps its template.
    expect(requests(template, '404')).toBe(1);
    expect(requests('/me', '200')).toBe(1 + RATE_LIMIT);
    expect(requests('/me', '401')).toBe(1);
    expect(requests('/me', '429')).toBe(1);
    // No route: one label for all of them, /metrics on the public port included.
    expect(requests('unmatched', '404')).toBe(2);
    const timed = histogram(scraped, 'http_request_duration_seconds', { route: template, status: '200' });
    expect(timed.buckets).toContain('+Inf');
    expect(timed.sum).toBeGreaterThan(0);
    expect(metricValue(scraped, 'rate_limit_refusals_total')).toBe(1);

    for (const value of labelValues(scraped)) expect(value).not.toMatch(UUID);
    expect(scraped.text).not.toMatch(UUID);
    for (const actor of [tenant.owner, reader, spender]) {
      expect(scraped.text).not.toContain(actor.token);
      expect(scraped.text).not.toContain(actor.email);
      expect(scraped.text).not.toContain(actor.subject);
    }
    expect(scraped.text).not.toContain('@');
    expect(scraped.text).not.toContain('/no/such/route');
  });

  it('times the statements, and shows the process metrics', async () => {
    const scraped = await scrapeMetrics(metrics.url);
    expect(histogram(scraped, 'db_query_duration_seconds', { pool: 'requests' }).count).toBeGreaterThan(0);
    for (const name of [
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(scraped.families.map((found) => found.name)).toContain(name);
  });

  it('counts webhook deliveries by outcome once recorded, and the backlog at each scrape', async () => {
    const tenantId = await insertTenantRow(database.db);
    const endpoint = await insertEndpoint(database.db, { tenantId, url: receiver.url('/metrics-hook') });
    await recordEvents(database.db, tenantId, 3);
    const before = await scrapeMetrics(metrics.url);
    expect(metricValue(before, 'webhook_backlog')).toBe(3);
    expect(metricValue(before, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(0);

    let answered = 0;
    receiver.answer = () => ({ status: ++answered <= 2 ? 204 : 500 });
    await testDispatcher(database).drain({ now: afterWhatWasRecorded() });
    const after = await scrapeMetrics(metrics.url);
    expect(receiver.to('/metrics-hook')).toHaveLength(3);
    expect(metricValue(after, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(2);
    expect(metricValue(after, 'webhook_deliveries_total', { outcome: 'retrying' })).toBe(1);
    expect(metricValue(after, 'webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
    // The failed head waits for its retry.
    expect(metricValue(after, 'webhook_backlog')).toBe(1);
    expect(after.text).not.toContain(endpoint.id);
  });

  it('shows the pools on PostgreSQL only', async () => {
    const scraped = await scrapeMetrics(metrics.url);
    const max = metricValue(scraped, 'db_pool_connections_max', { pool: 'requests' });
    if (testDatabaseKind() === 'pglite') {
      expect(samplesOf(scraped, 'db_pool_connections_in_use')).toEqual([]);
      expect(Number.isNaN(max)).toBe(true);
      return;
    }
    expect(max).toBe(10);
    expect(metricValue(scraped, 'db_pool_connections_in_use', { pool: 'requests' })).toBe(0);
    expect(metricValue(scraped, 'db_pool_requests_waiting', { pool: 'requests' })).toBe(0);
  });
});
