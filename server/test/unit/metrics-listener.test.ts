import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  type MetricsListener,
  scrapeThisProcess,
  startMetricsListener,
} from '../../src/metrics/metrics-listener.js';
import { BACKLOG_TIMEOUT_MS, trackWebhookBacklog } from '../../src/metrics/webhook-metrics.js';
import { metricValue, readMetrics } from '../support/metrics-text.js';

const logger = createLogger('silent');
let listener: MetricsListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
  vi.useRealTimers();
});

const start = (scrape = scrapeThisProcess) =>
  startMetricsListener({ port: 0, host: '127.0.0.1', logger, scrape }).then((started) => {
    listener = started;
    return started;
  });

describe('the metrics listener', () => {
  it('answers GET and HEAD /metrics with the scrape, and nothing else', async () => {
    const { url } = await start(async () => ({ contentType: 'text/plain; version=0.0.4', body: 'up 1\n' }));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const scraped = await fetch(url);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(await scraped.text()).toBe('up 1\n');
    expect(await fetch(`${url}?x=1`).then((res) => res.status)).toBe(200);
    const head = await fetch(url, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    const base = url.replace(/\/metrics$/, '');
    expect(await fetch(`${base}/`).then((res) => res.status)).toBe(404);
    expect(await fetch(`${base}/metricsx`).then((res) => res.status)).toBe(404);
    const post = await fetch(url, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('answers 500 when the scrape fails, and keeps serving', async () => {
    let fail = true;
    const { url } = await start(async () => {
      if (fail) throw new Error('a worker did not answer');
      return { contentType: 'text/plain', body: 'up 1\n' };
    });
    expect(await fetch(url).then((res) => res.status)).toBe(500);
    fail = false;
    expect(await fetch(url).then((res) => res.status)).toBe(200);
  });

  it('refuses to start on an address in use, and frees its own on close', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(
        startMetricsListener({ port, host: '127.0.0.1', logger, scrape: scrapeThisProcess }),
      ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      taken.close();
    }
    const own = await start();
    const ownPort = Number(new URL(own.url).port);
    await own.close();
    listener = undefined;
    const again = await startMetricsListener({
      port: ownPort,
      host: '127.0.0.1',
      logger,
      scrape: scrapeThisProcess,
    });
    await again.close();
  });
});

describe('the webhook backlog at scrape time', () => {
  const backlog = async () => metricValue(readMetrics((await scrapeThisProcess()).body), 'webhook_backlog');

  it('is the count when the database answers', async () => {
    trackWebhookBacklog(async () => 7);
    expect(await backlog()).toBe(7);
  });

  it('is NaN, and the scrape still succeeds, when the database fails', async () => {
    trackWebhookBacklog(() => Promise.reject(new Error('connection refused')));
    expect(await backlog()).toBeNaN();
  });

  it('is NaN once the count has taken BACKLOG_TIMEOUT_MS, and the scrape does not wait longer', async () => {
    vi.useFakeTimers();
    trackWebhookBacklog(() => new Promise<number>(() => {}));
    const scraping = backlog();
    await vi.advanceTimersByTimeAsync(BACKLOG_TIMEOUT_MS);
    expect(await scraping).toBeNaN();
  });
});
