import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/rate-limit/rate-limiter.js';
import { createActor } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';

let h: TestServer;
let limited: TestServer;
beforeAll(async () => {
  h = await startTestServer();
  limited = await startTestServer({ database: h.database, rateLimit: { max: 5, windowSeconds: 3600 } });
});
afterAll(async () => {
  await limited?.close();
  await h?.close();
});

const me = (server: TestServer, token?: string) =>
  fetch(`${server.baseUrl}/me`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('rate limits per caller', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a subject spends its budget, and spares others', async () => {
    const [spender, bystander] = [await createActor(h), await createActor(h)];
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await me(limited, spender.token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = await me(limited, spender.token);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect((await jsonOf(refused)).error.code).toBe('RATE_LIMITED');
    const other = await me(limited, bystander.token);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('counts callers without a valid token by address, so guessing tokens is limited too', async () => {
    const anonymous = fetch(`${limited.baseUrl}/admin/tenants`, { headers: { 'x-request-id': 'a' } });
    expect((await anonymous).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await me(limited, 'not.a.token')).status);
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4)).toEqual([429, 429]);
  });

  it('never limits the health routes', async () => {
    for (let i = 0; i < 10; i++) expect((await fetch(`${limited.baseUrl}/health/live`)).status).toBe(200);
  });

  it('is off when not configured', async () => {
    const caller = await createActor(h);
    for (let i = 0; i < 10; i++) expect((await me(h, caller.token)).status).toBe(200);
  });
});

describe('limits shared through the database', () => {
  it('holds across two servers: hits on one count on the other after a flush', async () => {
    // Flushes are driven by the test: a timer-driven flush races the requests, and the limiter
    // only promises to share counts once per flush interval.
    const settings = { max: 10, windowSeconds: 3600, flushMs: 3_600_000 };
    const one = await startTestServer({ database: h.database, rateLimit: settings });
    const two = await startTestServer({ database: h.database, rateLimit: settings });
    try {
      const caller = await createActor(h);
      for (let i = 0; i < 6; i++) expect((await me(one, caller.token)).status).toBe(200);
      await one.rateLimiter?.flush();
      const onTwo: number[] = [(await me(two, caller.token)).status];
      await two.rateLimiter?.flush();
      for (let i = 0; i < 5; i++) onTwo.push((await me(two, caller.token)).status);
      expect(onTwo).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('shares counts on its own timer', async () => {
    const one = await startTestServer({
      database: h.database,
      rateLimit: { max: 10, windowSeconds: 3600, flushMs: 20 },
    });
    try {
      const caller = await createActor(h);
      for (let i = 0; i < 3; i++) expect((await me(one, caller.token)).status).toBe(200);
      await vi.waitFor(
        async () => {
          const rows = await h.db.execute<{ hits: number }>(
            sql`select hits from rate_limit_hits where key = ${`sub:${caller.subject}`}`,
          );
          const list = Array.isArray(rows) ? rows : (rows as unknown as { rows: { hits: number }[] }).rows;
          expect(list.map((row) => Number(row.hits))).toEqual([3]);
        },
        { timeout: 5000, interval: 25 },
      );
    } finally {
      await one.close();
    }
  });

  it('starts a new budget with a new window', () => {
    let now = 3_600_000;
    const limiter = new RateLimiter(h.db, { max: 2, windowSeconds: 60 }, undefined, () => now);
    expect([limiter.hit('k').allowed, limiter.hit('k').allowed, limiter.hit('k').allowed]).toEqual([
      true,
      true,
      false,
    ]);
    now += 60_000;
    expect(limiter.hit('k')).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 60 });
  });
});
