import {
  ApiError,
  type ClientOptions,
  createClient,
  type FetchFunction,
  isApiError,
  NetworkError,
} from '@tms/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, createActor, createSuperAdmin, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

// The SDK's options against a live server: a fetch of one's own, per-call signals and headers,
// retries (the waits recorded, never waited), hooks, the errors' request ids and Retry-After, and
// the Idempotency-Key that makes a retried POST safe.

let h: TestServer;
let limited: TestServer;
let admin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  limited = await startTestServer({ database: h.database, rateLimit: { max: 2, windowSeconds: 3600 } });
  admin = await createSuperAdmin(h);
});
afterAll(async () => {
  await limited?.close();
  await h?.close();
});

type Sent = { method: string; url: string; headers: Headers };

/** The global fetch, recording what it sends; `before` may fail a request instead of sending it. */
function recordingFetch(before?: (n: number, sent: Sent) => Response | Error | undefined) {
  const sent: Sent[] = [];
  const fetch: FetchFunction = async (url, init) => {
    const request = { method: init.method ?? 'GET', url, headers: new Headers(init.headers) };
    sent.push(request);
    const instead = before?.(sent.length, request);
    if (instead instanceof Error) throw instead;
    return instead ?? globalThis.fetch(url, init);
  };
  return { fetch, sent };
}

function recordedSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const sdkFor = (server: TestServer, token: string, options: Partial<ClientOptions> = {}) =>
  createClient({ baseUrl: server.baseUrl, token, ...options });

const newTenant = () => ({
  name: 'Options School',
  slug: unique('opt'),
  owner: { email: `${unique('o')}@opt.test` },
});

describe('a fetch of your own', () => {
  it('carries every request, with the bearer token and JSON body the SDK made', async () => {
    const { fetch, sent } = recordingFetch();
    const sdk = sdkFor(h, admin.token, { fetch });
    const tenant = await sdk.tenants.create(newTenant());
    expect(await sdk.tenants.get(tenant.tenantId)).toEqual(tenant);
    expect(sent.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual([
      'POST /admin/tenants',
      `GET /admin/tenants/${tenant.tenantId}`,
    ]);
    expect(sent[0]?.headers.get('authorization')).toBe(`Bearer ${admin.token}`);
    expect(sent[0]?.headers.get('content-type')).toBe('application/json');
  });
});

describe('per call: headers and a signal', () => {
  it('sends the headers of one call only; the request id a caller sets comes back on its error', async () => {
    const seen: (string | undefined)[] = [];
    const sdk = sdkFor(h, admin.token, { onResponse: ({ requestId }) => void seen.push(requestId) });
    const error = await sdk.tenants
      .get('0195b7f0-0000-7000-8000-00000000dead', { headers: { 'x-request-id': 'support-ticket-42' } })
      .catch((e: unknown) => e);
    expect(isApiError(error, 'TENANT_NOT_FOUND')).toBe(true);
    expect(error).toMatchObject({ status: 404, requestId: 'support-ticket-42' });
    await sdk.me();
    expect(seen[0]).toBe('support-ticket-42');
    expect(seen[1]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('aborts: before sending, and while the request is in flight', async () => {
    const { fetch, sent } = recordingFetch();
    const sdk = sdkFor(h, admin.token, { fetch });
    const before = await sdk.me({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(NetworkError);
    expect(before).toMatchObject({ aborted: true });
    expect(sent).toHaveLength(0);

    const controller = new AbortController();
    const inFlight = sdkFor(h, admin.token, {
      fetch: (url, init) => {
        const answer = globalThis.fetch(url, init);
        controller.abort(new Error('the user left the page'));
        return answer;
      },
    });
    const error = await inFlight.me({ signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'NetworkError', aborted: true });
    expect((error as NetworkError).cause).toEqual(new Error('the user left the page'));
  });
});

describe('retries', () => {
  it('retries a GET after network failures, waiting a random time under the doubling ceiling', async () => {
    const { fetch, sent } = recordingFetch((n) => (n <= 2 ? new TypeError('fetch failed') : undefined));
    const { sleep, waits } = recordedSleep();
    const sdk = sdkFor(h, admin.token, { fetch, retries: { baseDelayMs: 100, sleep } });
    expect((await sdk.me()).user.userId).toBe(admin.userId);
    expect(sent).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThan(100);
    expect(waits[1]).toBeLessThan(200);
  });

  it('retries a 503 after its Retry-After', async () => {
    const unavailable = () =>
      new Response(
        JSON.stringify({
          success: false,
          error: { code: 'SERVICE_UNAVAILABLE', message: 'busy', requestId: 'proxy-1' },
        }),
        { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '2' } },
      );
    const { fetch, sent } = recordingFetch((n) => (n === 1 ? unavailable() : undefined));
    const { sleep, waits } = recordedSleep();
    const statuses: number[] = [];
    const sdk = sdkFor(h, admin.token, {
      fetch,
      retries: { sleep },
      onResponse: ({ status }) => void statuses.push(status),
    });
    await sdk.tenants.list({ limit: 1 });
    expect(sent).toHaveLength(2);
    // At least the Retry-After, less than twice it: callers sent back together spread out.
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
    expect(waits[0]).toBeLessThan(4000);
    expect(statuses).toEqual([503, 200]);
  });

  it("throws the rate limiter's 429 at once when its Retry-After is longer than the policy waits", async () => {
    const caller = await createActor(h);
    const statuses: number[] = [];
    const sdk = sdkFor(limited, caller.token, { onResponse: ({ status }) => void statuses.push(status) });
    await sdk.me();
    await sdk.me();
    const error = await sdk.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const refused = error as ApiError;
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(refused.retryAfter).toBeGreaterThan(0);
    expect(refused.retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('waits out the Retry-After of a 429 when the policy allows it, then gives up after `attempts`', async () => {
    const caller = await createActor(h);
    const statuses: number[] = [];
    const { sleep, waits } = recordedSleep();
    const sdk = sdkFor(limited, caller.token, {
      retries: { attempts: 3, maxDelayMs: 3_600_000, sleep },
      onResponse: ({ status }) => void statuses.push(status),
    });
    await sdk.me();
    await sdk.me();
    const error = (await sdk.me().catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('RATE_LIMITED');
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect(wait).toBeGreaterThan(0);
    expect(waits[0]).toBeGreaterThanOrEqual((error.retryAfter ?? 0) * 1000);
    expect(waits[0]).toBeLessThan((error.retryAfter ?? 0) * 2000);
  });

  it('tries once with `retries: false`', async () => {
    const { fetch, sent } = recordingFetch(() => new TypeError('fetch failed'));
    const error = await sdkFor(h, admin.token, { fetch, retries: false })
      .me()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(sent).toHaveLength(1);
  });
});

describe('lists', () => {
  it("sends the contract's query keys (sort, includeTotal) and answers the total when counted", async () => {
    const sdk = sdkFor(h, admin.token);
    const tenant = await sdk.tenants.create(newTenant());
    const student = await sdk.memberships.create(tenant.tenantId, {
      role: 'STUDENT',
      email: `${unique('kid')}@opt.test`,
    });
    const newest = await sdk.memberships.list(tenant.tenantId, {
      sort: '-createdAt',
      includeTotal: true,
      limit: 1,
    });
    expect(newest.items.map((m) => m.tenantMembershipId)).toEqual([student.tenantMembershipId]);
    expect(newest.total).toBe(2);
    expect(newest.nextCursor).not.toBeNull();
    const uncounted = await sdk.memberships.list(tenant.tenantId, { includeTotal: false });
    expect(uncounted).not.toHaveProperty('total');
  });
});

describe('hooks', () => {
  it('lets onRequest add a header the server sees, and shows onResponse the status, headers and request id', async () => {
    const events: unknown[] = [];
    const sdk = sdkFor(h, admin.token, {
      onRequest: ({ method, headers, attempt }) => {
        headers.set('x-request-id', `trace-${method}-${attempt}`);
      },
      onResponse: ({ method, status, requestId, headers }) => {
        events.push({ method, status, requestId, etag: headers.get('etag') });
      },
    });
    const tenant = await sdk.tenants.create(newTenant());
    await sdk.tenants.get(tenant.tenantId);
    expect(events).toEqual([
      { method: 'POST', status: 201, requestId: 'trace-POST-1', etag: '"1"' },
      { method: 'GET', status: 200, requestId: 'trace-GET-1', etag: '"1"' },
    ]);
  });
});

describe('idempotency keys', () => {
  it('sends a fresh key with each POST, the same on its retries, and none with reads and changes', async () => {
    const { fetch, sent } = recordingFetch((n) => (n === 1 ? new TypeError('fetch failed') : undefined));
    const sdk = sdkFor(h, admin.token, { fetch, retries: { baseDelayMs: 0 } });
    const tenant = await sdk.tenants.create(newTenant());
    await sdk.tenants.update(tenant.tenantId, { name: 'Renamed' });
    await sdk.memberships.create(tenant.tenantId, { role: 'STUDENT', email: `${unique('kid')}@opt.test` });
    const keys = sent.map((s) => `${s.method} ${s.headers.get('idempotency-key') ?? '-'}`);
    expect(keys).toEqual([
      expect.stringMatching(/^POST [0-9a-f-]{36}$/),
      keys[0],
      'PATCH -',
      expect.stringMatching(/^POST [0-9a-f-]{36}$/),
    ]);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('replays the first answer when the answer to a POST is lost and the SDK retries it', async () => {
    // The first request reaches the server and creates the tenant; its answer never arrives.
    let attempts = 0;
    const lost: FetchFunction = async (url, init) => {
      const answer = await globalThis.fetch(url, init);
      if (attempts++ === 0) throw new TypeError('connection reset after the request was sent');
      return answer;
    };
    const replayed: (string | null)[] = [];
    const sdk = sdkFor(h, admin.token, {
      fetch: lost,
      retries: { baseDelayMs: 0 },
      onResponse: ({ headers }) => void replayed.push(headers.get('idempotent-replayed')),
    });
    const body = newTenant();
    const tenant = await sdk.tenants.create(body);
    expect(tenant.slug).toBe(body.slug);
    expect(attempts).toBe(2);
    expect(replayed).toEqual(['true']); // the lost first answer never reached the SDK
    expect((await sdk.tenants.list({ q: body.slug })).items).toHaveLength(1);
  });

  it("takes the caller's own key: the same operation replays, another body is refused", async () => {
    const sdk = sdkFor(h, admin.token);
    const key = unique('signup-form');
    const body = newTenant();
    const first = await sdk.tenants.create(body, { idempotencyKey: key });
    expect(await sdk.tenants.create(body, { idempotencyKey: key })).toEqual(first);
    const reused = await sdk.tenants
      .create({ ...body, name: 'Another' }, { idempotencyKey: key })
      .catch((e: unknown) => e);
    expect(reused).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
  });
});
