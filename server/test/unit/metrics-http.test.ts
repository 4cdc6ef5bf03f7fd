import { once } from 'node:events';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { register } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRequestMetrics } from '../../src/metrics/http-metrics.js';
import { histogram, labelValues, readMetrics } from '../support/metrics-text.js';

// The labels of the request histogram, on an app that stands in for ours: ts-rest marks the
// requests it matched with their route (req.tsRestRoute), the docs router serves under /docs.
let server: Server;
let baseUrl: string;
let clientGone: Promise<void>;
let onClientGone: () => void;

beforeAll(async () => {
  clientGone = new Promise((resolve) => {
    onClientGone = resolve;
  });
  const app = express();
  app.use(recordRequestMetrics());
  app.get('/things/:thingId', (req, res) => {
    req.tsRestRoute = { path: '/things/:thingId', method: 'GET' };
    res.sendStatus(req.params.thingId === 'missing' ? 404 : 204);
  });
  app.get('/hang', (_req, res) => {
    // Registered after the metrics' own listener: by the time this runs, the request was observed.
    res.once('close', () => onClientGone());
  });
  app.use('/docs', (_req, res) => res.send('swagger'));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const scrape = async () => readMetrics(await register.metrics());
const count = async (route: string, status: string, method = 'GET') =>
  histogram(await scrape(), 'http_request_duration_seconds', { route, method, status }).count;

describe('the request histogram', () => {
  it('labels a matched request with its template, even when the route answers 404', async () => {
    expect((await fetch(`${baseUrl}/things/4b0c5f6e-2f61-4bd4-9a51-3d2a84f5b2c1`)).status).toBe(204);
    expect((await fetch(`${baseUrl}/things/missing`)).status).toBe(404);
    expect(await count('/things/:thingId', '204')).toBe(1);
    expect(await count('/things/:thingId', '404')).toBe(1);
  });

  it('gives every request that no route answered one label, whatever its path or method', async () => {
    expect((await fetch(`${baseUrl}/someone@example.test/secret-token`)).status).toBe(404);
    expect((await fetch(`${baseUrl}/nothing-here`, { method: 'DELETE' })).status).toBe(404);
    expect((await fetch(`${baseUrl}/x`, { method: 'PURGE' })).status).toBe(404);
    expect(await count('unmatched', '404')).toBe(1);
    expect(await count('unmatched', '404', 'DELETE')).toBe(1);
    // A method outside the usual ones is OTHER: the set of series stays bounded.
    expect(await count('unmatched', '404', 'OTHER')).toBe(1);
  });

  it('labels the docs pages by their mount point', async () => {
    expect((await fetch(`${baseUrl}/docs/swagger-ui.css?v=1`)).status).toBe(200);
    expect(await count('/docs', '200')).toBe(1);
  });

  it('counts a request whose client went away before the answer as 499', async () => {
    // Once the request is in the app, the client leaves.
    const arrived = new Promise<void>((resolve) => server.once('request', () => setImmediate(resolve)));
    const sent = request(`${baseUrl}/hang`);
    sent.on('error', () => {});
    sent.end();
    await arrived;
    sent.destroy();
    await clientGone;
    expect(await count('unmatched', '499')).toBe(1);
  });

  it('shows no path, id, email or token', async () => {
    const scraped = await scrape();
    expect(scraped.text).not.toMatch(
      /4b0c5f6e|missing|example\.test|secret-token|nothing-here|swagger-ui\.css/,
    );
    expect(new Set(labelValues(scraped).filter((value) => value.startsWith('/')))).toEqual(
      new Set(['/things/:thingId', '/docs']),
    );
  });
});
