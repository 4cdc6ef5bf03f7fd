import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.js';
import type { Resolver } from '../../src/modules/webhooks/target-address.js';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signing.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../support/test-database.js';
import {
  deliveriesOf,
  insertEndpoint,
  insertTenantRow,
  recordEvents,
  testDispatcher,
} from '../support/webhook-delivery-fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// What a URL chosen by someone else must not make the worker do: reach a private address (now,
// not only at registration), follow a redirect, read an answer without end, wait without end.
// Names are resolved by stubs: these tests never ask a real DNS, nor connect anywhere but 127.0.0.1.
const EXAMPLE = fileURLToPath(new URL('../../../examples/webhook-receiver.mjs', import.meta.url));
const STRICT = { allowPrivateNetworks: false, requireHttps: false };
/** Every drain at this one instant: a failed attempt here is never due again in this file. */
const T0 = new Date('2030-01-01T00:00:00.000Z');

let database: TestDatabase;
let receiver: WebhookReceiver;
const secret = generateWebhookSecret();

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await WebhookReceiver.start({ secret });
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
});
afterEach(() => {
  receiver.answer = () => ({ status: 204 });
  receiver.requests.length = 0;
});

/** One event queued for a new endpoint at `url`; answers its delivery after one drain. */
async function deliverOne(url: string, dispatcher = testDispatcher(database)) {
  const tenantId = await insertTenantRow(database.db);
  const endpoint = await insertEndpoint(database.db, { tenantId, url, secret });
  await recordEvents(database.db, tenantId, 1);
  await dispatcher.drain({ now: T0 });
  const [delivery] = await deliveriesOf(database.db, endpoint.id);
  if (!delivery) throw new Error('no delivery');
  return delivery;
}

const stub =
  (answers: Record<string, string[]>): Resolver =>
  async (host) => {
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe(`webhook delivery safety (${testDatabaseKind()})`, () => {
  it('refuses, at delivery time, an address that is not public: no connection is made', async () => {
    const strict = testDispatcher(database, {
      policy: STRICT,
      resolve: stub({ 'hooks.example.test': ['93.184.216.34', '10.0.0.7'] }),
    });
    const loopback = await deliverOne(receiver.url('/ssrf'), strict);
    expect(loopback).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: null });
    expect(loopback.lastError).toBe('refused: 127.0.0.1 is a loopback address');
    // A name is judged by every address it resolves to, whatever their order.
    const named = await deliverOne(`http://hooks.example.test:${receiver.port}/ssrf`, strict);
    expect(named.lastError).toBe('refused: hooks.example.test resolves to 10.0.0.7, a private address');
    const nowhere = await deliverOne('http://nowhere.example.test/ssrf', strict);
    expect(nowhere.lastError).toBe('unresolved: nowhere.example.test does not resolve');
    const https = testDispatcher(database, { policy: { allowPrivateNetworks: true, requireHttps: true } });
    expect((await deliverOne(receiver.url('/ssrf'), https)).lastError).toBe('refused: HTTPS is required');
    expect(receiver.requests).toHaveLength(0);
  });

  it('connects to the address it checked, saying the name in Host', async () => {
    const pinned = testDispatcher(database, { resolve: stub({ 'receiver.example.test': ['127.0.0.1'] }) });
    const delivery = await deliverOne(`http://receiver.example.test:${receiver.port}/pinned?x=1`, pinned);
    expect(delivery).toMatchObject({ status: 'DELIVERED', lastStatusCode: 204 });
    const [request] = receiver.requests;
    expect(request).toMatchObject({ path: '/pinned?x=1', verified: true });
    expect(request?.headers.host).toBe(`receiver.example.test:${receiver.port}`);
  });

  it('does not follow a redirect: a 3xx is a failure, and its Location is never reached', async () => {
    receiver.answer = (request) =>
      request.path === '/moved'
        ? { status: 302, headers: { location: receiver.url('/elsewhere') } }
        : { status: 204 };
    const delivery = await deliverOne(receiver.url('/moved'));
    expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: 302, lastError: null });
    expect(receiver.requests.map((request) => request.path)).toEqual(['/moved']);
  });

  it('keeps at most 1 KB of the answer, cut at a character, and stops reading there', async () => {
    receiver.answer = () => ({ status: 500, body: `x${'é'.repeat(1000)}` });
    const cut = await deliverOne(receiver.url('/cap'));
    expect(cut.lastResponse).toBe(`x${'é'.repeat(511)}`);
    expect(Buffer.byteLength(cut.lastResponse ?? '')).toBe(1023);

    // 16 MB: more than the socket buffers hold, so the receiver sees the connection dropped.
    receiver.answer = () => ({ status: 200, body: 'y'.repeat(16 * 1024 * 1024) });
    const huge = await deliverOne(receiver.url('/huge'));
    expect(huge).toMatchObject({ status: 'DELIVERED', lastStatusCode: 200, lastResponse: 'y'.repeat(1024) });
    await receiver.waitFor(
      () => receiver.to('/huge')[0]?.aborted === true,
      10_000,
      'the huge answer cut off',
    );
  });

  it('gives up on a receiver that does not answer in time, or is not there', async () => {
    receiver.answer = () => 'hold';
    const quick = testDispatcher(database, { totalTimeoutMs: 300, connectTimeoutMs: 200 });
    const held = await deliverOne(receiver.url('/held'), quick);
    expect(held).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastStatusCode: null,
      lastError: 'timeout',
    });
    await receiver.waitFor(
      () => receiver.to('/held')[0]?.aborted === true,
      10_000,
      'the held request dropped',
    );

    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const refused = await deliverOne(`http://127.0.0.1:${port}/gone`, quick);
    expect(refused.lastError).toBe('connection refused');
  });
});

describe(`examples/webhook-receiver.mjs, run as its users would (${testDatabaseKind()})`, () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('verifies and prints each delivery once, and refuses a forged one', async () => {
    const exampleSecret = generateWebhookSecret();
    child = spawn(process.execPath, [EXAMPLE], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: exampleSecret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the example did not start: ${stderr}`)), 15_000);
      child?.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });

    const tenantId = await insertTenantRow(database.db);
    const endpoint = await insertEndpoint(database.db, {
      tenantId,
      url: `${url}/hooks`,
      secret: exampleSecret,
    });
    await recordEvents(database.db, tenantId, 2);
    const dispatcher = testDispatcher(database);
    await dispatcher.drain({ now: T0 });
    const deliveries = await deliveriesOf(database.db, endpoint.id);
    expect(deliveries.map((delivery) => delivery.status)).toEqual(['DELIVERED', 'DELIVERED']);
    // Sent again (as a retry or a restart mid-send would): answered 2xx, not handled twice.
    await database.db
      .update(webhookDeliveries)
      .set({ status: 'PENDING' })
      .where(eq(webhookDeliveries.id, deliveries[0]?.id ?? ''));
    await dispatcher.drain({ now: T0 });

    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; type: string; tenantId: string; sequence: number });
    expect(lines).toEqual(
      deliveries.map((delivery, i) =>
        expect.objectContaining({ id: delivery.id, type: 'tenant.updated', tenantId, sequence: i + 1 }),
      ),
    );
    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: '{}',
    });
    expect(forged.status).toBe(400);
  });
});
