import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type ClientOptions, createClient, isApiError, NetworkError } from '../src/index.js';
import { fakeFetch, json, offline, ok, type Reply, recordedSleep, refused } from './fake-fetch.js';

const BASE = 'https://members.example.test/api/';
const TENANT = '0195b7f0-0000-7000-8000-000000000001';
const MEMBERSHIP = '0195b7f0-0000-7000-8000-000000000002';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function sdk(replies: Reply[], options: Partial<ClientOptions> = {}) {
  const { fetch, sent } = fakeFetch(...replies);
  const { sleep, waits } = recordedSleep();
  const client = createClient({ baseUrl: BASE, token: 'tok', fetch, retries: { sleep }, ...options });
  return { client, sent, waits };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('requests', () => {
  it('builds the URL on the base URL, with encoded parameters, and sends the token', async () => {
    const { client, sent } = sdk([ok({ role: 'ADMIN' })]);
    await client.memberships.get(TENANT, 'a/b');
    expect(sent[0]?.url).toBe(`https://members.example.test/api/tenants/${TENANT}/memberships/a%2Fb`);
    expect(sent[0]?.method).toBe('GET');
    expect(sent[0]?.headers.get('authorization')).toBe('Bearer tok');
    expect(sent[0]?.headers.has('content-type')).toBe(false);
    expect(sent[0]?.headers.has('idempotency-key')).toBe(false);
  });

  it('sends every query key the contract declares, and leaves undefined ones out', async () => {
    const { client, sent } = sdk([json(200, { success: true, data: [], meta: { nextCursor: null } })]);
    await client.memberships.list(TENANT, {
      role: 'TEACHER',
      q: undefined,
      limit: 10,
      sort: '-createdAt',
      includeTotal: true,
    });
    const url = new URL(sent[0]?.url ?? '');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      role: 'TEACHER',
      limit: '10',
      sort: '-createdAt',
      includeTotal: 'true',
    });
  });

  it('sends JSON bodies, and If-Match as the quoted version', async () => {
    const { client, sent } = sdk([ok({ role: 'ADMIN' })]);
    await client.memberships.update(TENANT, MEMBERSHIP, { role: 'ADMIN' }, { ifMatch: 3 });
    expect(sent[0]?.method).toBe('PATCH');
    expect(sent[0]?.headers.get('content-type')).toBe('application/json');
    expect(sent[0]?.headers.get('if-match')).toBe('"3"');
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual({ role: 'ADMIN' });
  });

  it('asks the token function again on every try, so a retry carries a refreshed token', async () => {
    let n = 0;
    const { client, sent } = sdk([refused(503, 'SERVICE_UNAVAILABLE'), ok({})], {
      token: async () => `token-${++n}`,
    });
    await client.me();
    expect(sent.map((s) => s.headers.get('authorization'))).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('lays per-call headers over the client headers', async () => {
    const { client, sent } = sdk([ok({})], { headers: { 'x-app': 'a', 'x-trace': 'client' } });
    await client.me({ headers: { 'x-trace': 'call' } });
    expect(sent[0]?.headers.get('x-app')).toBe('a');
    expect(sent[0]?.headers.get('x-trace')).toBe('call');
  });

  it("calls a custom fetch as a plain function: a browser's fetch refuses any other `this`", async () => {
    const seen: unknown[] = [];
    const client = createClient({
      baseUrl: BASE,
      fetch: function (this: unknown) {
        seen.push(this);
        return Promise.resolve(ok({})() as Response);
      },
    });
    await client.me();
    expect(seen).toEqual([undefined]);
  });
});

describe('answers', () => {
  it('answers a page, with total only when the service counted', async () => {
    const page = (meta: object) => json(200, { success: true, data: [{ tenantId: TENANT }], meta });
    const { client } = sdk([page({ nextCursor: 'c2' }), page({ nextCursor: null, total: 7 })]);
    const first = await client.tenants.list();
    expect(first).toEqual({ items: [{ tenantId: TENANT }], nextCursor: 'c2' });
    expect('total' in first).toBe(false);
    expect(await client.tenants.list({ cursor: 'c2' })).toEqual({
      items: [{ tenantId: TENANT }],
      nextCursor: null,
      total: 7,
    });
  });

  it('throws ApiError with the request id from the x-request-id header when the envelope has none', async () => {
    const { client } = sdk([
      json(
        403,
        { success: false, error: { code: 'INSUFFICIENT_ROLE', message: 'no' } },
        { 'x-request-id': 'r9' },
      ),
    ]);
    const error = await client.me().catch((e: unknown) => e);
    expect(isApiError(error, 'INSUFFICIENT_ROLE')).toBe(true);
    expect(error).toMatchObject({ status: 403, requestId: 'r9', details: [], retryAfter: undefined });
  });

  it('throws NetworkError for an answer that is not the service speaking', async () => {
    const html: Reply = () =>
      new Response('<h1>Bad gateway</h1>', { status: 502, headers: { 'content-type': 'text/html' } });
    const broken = json(200, undefined);
    const notJson: Reply = () =>
      new Response('{"success":tru', { status: 200, headers: { 'content-type': 'application/json' } });
    for (const reply of [html, notJson, broken]) {
      const error = await sdk([reply])
        .client.me()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
    }
  });

  it('answers a probe body on 503 without retrying it: that 503 is the answer', async () => {
    const { client, sent } = sdk([json(503, { status: 'unavailable' })]);
    expect(await client.health.ready()).toEqual({ status: 'unavailable' });
    expect(sent).toHaveLength(1);
  });
});

describe('retries', () => {
  it('retries a GET on 429, 503 and network failures, then answers', async () => {
    const { fetch, sent } = fakeFetch(
      refused(429, 'RATE_LIMITED'),
      offline,
      refused(503, 'SERVICE_UNAVAILABLE'),
      ok({ user: {} }),
    );
    const { sleep, waits } = recordedSleep();
    const client = createClient({ baseUrl: BASE, fetch, retries: { attempts: 4, sleep } });
    expect(await client.me()).toEqual({ user: {} });
    expect(sent).toHaveLength(4);
    expect(waits).toHaveLength(3);
  });

  it('gives up after `attempts` tries, with the last error', async () => {
    const a = sdk([refused(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' })]);
    expect(await a.client.me().catch((e: unknown) => e)).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      retryAfter: 1,
    });
    expect(a.sent).toHaveLength(3);
    const b = sdk([offline]);
    expect(await b.client.me().catch((e: unknown) => e)).toBeInstanceOf(NetworkError);
    expect(b.sent).toHaveLength(3);
  });

  it('never retries a refusal that is an answer (4xx other than 429)', async () => {
    const { client, sent } = sdk([refused(409, 'LAST_OWNER')]);
    await expect(client.memberships.remove(TENANT, MEMBERSHIP)).rejects.toBeInstanceOf(ApiError);
    expect(sent).toHaveLength(1);
  });

  it('waits a random time up to the doubling ceiling (full jitter), never over maxDelayMs', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const { fetch } = fakeFetch(offline);
    const { sleep, waits } = recordedSleep();
    const client = createClient({
      baseUrl: BASE,
      fetch,
      retries: { attempts: 5, baseDelayMs: 100, maxDelayMs: 500, sleep },
    });
    await client.me().catch(() => undefined);
    expect(waits).toEqual([99, 199, 399, 499]);
  });

  it('honours Retry-After, in seconds or as an HTTP date, up to maxDelayMs', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const inTwoSeconds = new Date(Date.now() + 2500).toUTCString();
    const { client, waits } = sdk([
      refused(429, 'RATE_LIMITED', { 'retry-after': '2' }),
      refused(503, 'SERVICE_UNAVAILABLE', { 'retry-after': inTwoSeconds }),
      ok({}),
    ]);
    await client.me();
    expect(waits[0]).toBe(2000);
    expect(waits[1]).toBeGreaterThan(500);
    expect(waits[1]).toBeLessThanOrEqual(2500);
  });

  it('spreads the callers a Retry-After sends back: never sooner than it says, less than twice it', async () => {
    const waits: number[] = [];
    for (let caller = 0; caller < 50; caller++) {
      const one = sdk([refused(429, 'TENANT_BUSY', { 'retry-after': '1' }), ok({})]);
      await one.client.me();
      waits.push(...one.waits);
    }
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...waits)).toBeLessThan(2000);
    // Not one moment for all of them: at least half a second between the first and the last.
    expect(Math.max(...waits) - Math.min(...waits)).toBeGreaterThan(500);
  });

  it('keeps a jittered Retry-After within maxDelayMs', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const { fetch } = fakeFetch(refused(503, 'SERVICE_OVERLOADED', { 'retry-after': '8' }), ok({}));
    const { sleep, waits } = recordedSleep();
    const client = createClient({ baseUrl: BASE, fetch, retries: { maxDelayMs: 10_000, sleep } });
    await client.me();
    expect(waits).toEqual([9998]);
  });

  it('does not wait out a Retry-After longer than maxDelayMs: it throws, saying when to come back', async () => {
    const { client, sent, waits } = sdk([refused(429, 'RATE_LIMITED', { 'retry-after': '3600' })]);
    const error = await client.me().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: 3600, requestId: 'req-1' });
    expect(sent).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('retries nothing with `retries: false`', async () => {
    const { client, sent } = sdk([offline], { retries: false });
    await expect(client.me()).rejects.toBeInstanceOf(NetworkError);
    expect(sent).toHaveLength(1);
  });

  it('retries a PATCH only with If-Match, and a DELETE always', async () => {
    const busy = refused(503, 'SERVICE_UNAVAILABLE');
    const unconditional = sdk([busy]);
    await unconditional.client.tenants.update(TENANT, { name: 'x' }).catch(() => undefined);
    expect(unconditional.sent).toHaveLength(1);
    const conditional = sdk([busy, ok({ name: 'x' })]);
    await conditional.client.tenants.update(TENANT, { name: 'x' }, { ifMatch: 2 });
    expect(conditional.sent).toHaveLength(2);
    const removal = sdk([offline, json(204, undefined)]);
    await removal.client.tenants.remove(TENANT);
    expect(removal.sent).toHaveLength(2);
  });
});

describe('idempotency keys', () => {
  it('sends a random key on every POST, the same one on each retry of a call', async () => {
    const { client, sent } = sdk([
      offline,
      refused(429, 'RATE_LIMITED'),
      json(201, { success: true, data: {} }),
    ]);
    await client.memberships.create(TENANT, { role: 'STUDENT', email: 'a@b.test' });
    const keys = sent.map((s) => s.headers.get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(UUID_V4);
    expect(new Set(keys).size).toBe(1);
    await client.memberships.create(TENANT, { role: 'STUDENT', email: 'a@b.test' });
    expect(sent[3]?.headers.get('idempotency-key')).not.toBe(keys[0]);
  });

  it("sends the caller's own key, also with retries off (then the SDK makes none)", async () => {
    const { client, sent } = sdk([json(201, { success: true, data: {} })], { retries: false });
    await client.tenants.create({ name: 'A', slug: 'aaa', owner: { email: 'a@b.test' } });
    await client.tenants.create(
      { name: 'A', slug: 'aaa', owner: { email: 'a@b.test' } },
      { idempotencyKey: 'form-42' },
    );
    expect(sent.map((s) => s.headers.get('idempotency-key'))).toEqual([null, 'form-42']);
  });

  it('retries a 409 IDEMPOTENCY_KEY_IN_FLIGHT: the first try is still running', async () => {
    const { client, sent } = sdk([
      refused(409, 'IDEMPOTENCY_KEY_IN_FLIGHT'),
      json(201, { success: true, data: {} }),
    ]);
    await client.tenants.create({ name: 'A', slug: 'aaa', owner: { email: 'a@b.test' } });
    expect(sent).toHaveLength(2);
  });

  it('makes a version 4 UUID without crypto.randomUUID (insecure contexts lack it)', async () => {
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const { client, sent } = sdk([json(201, { success: true, data: {} })]);
      await client.tenants.create({ name: 'A', slug: 'aaa', owner: { email: 'a@b.test' } });
      expect(sent[0]?.headers.get('idempotency-key')).toMatch(UUID_V4);
    } finally {
      // Deleting the own property brings back the prototype's randomUUID.
      delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
  });
});

describe('cancellation and hooks', () => {
  it('rejects with an aborted NetworkError, before sending or while waiting to retry', async () => {
    const before = sdk([ok({})]);
    const error = await before.client.me({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'NetworkError', aborted: true });
    expect(before.sent).toHaveLength(0);

    const controller = new AbortController();
    const { fetch, sent } = fakeFetch(refused(503, 'SERVICE_UNAVAILABLE'));
    const client = createClient({
      baseUrl: BASE,
      fetch,
      retries: { baseDelayMs: 60_000, maxDelayMs: 60_000 }, // the real sleep: the abort must cut it short
      onResponse: () => controller.abort(),
    });
    const started = Date.now();
    expect(await client.me({ signal: controller.signal }).catch((e: unknown) => e)).toMatchObject({
      aborted: true,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(sent).toHaveLength(1);
  });

  it('lets onRequest add headers, and shows onResponse every answer with its request id', async () => {
    const requests: string[] = [];
    const responses: unknown[] = [];
    const { client, sent } = sdk(
      [refused(503, 'SERVICE_UNAVAILABLE', { 'x-request-id': 'a' }), ok({}, { 'x-request-id': 'b' })],
      {
        onRequest: ({ method, url, headers, attempt }) => {
          requests.push(`${attempt} ${method} ${url}`);
          headers.set('x-trace', `t${attempt}`);
        },
        onResponse: ({ status, requestId, attempt, headers }) => {
          responses.push({ status, requestId, attempt, type: headers.get('content-type') });
        },
      },
    );
    await client.me();
    expect(requests).toEqual([`1 GET ${BASE}me`, `2 GET ${BASE}me`]);
    expect(sent.map((s) => s.headers.get('x-trace'))).toEqual(['t1', 't2']);
    expect(responses).toEqual([
      { status: 503, requestId: 'a', attempt: 1, type: 'application/json; charset=utf-8' },
      { status: 200, requestId: 'b', attempt: 2, type: 'application/json; charset=utf-8' },
    ]);
  });
});
