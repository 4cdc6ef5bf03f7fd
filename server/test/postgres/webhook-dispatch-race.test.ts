import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { rowsOf } from '../../src/db/rows.js';
import { auditEvents, webhookDeliveries, webhookEndpoints } from '../../src/db/schema.js';
import { createDeliveryClaims } from '../../src/modules/webhooks/delivery-claims.js';
import type { Resolver } from '../../src/modules/webhooks/target-address.js';
import type { WebhookDispatcher } from '../../src/modules/webhooks/webhook-dispatcher.js';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signing.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import {
  afterWhatWasRecorded,
  insertEndpoint,
  insertTenantRow,
  recordEvents,
  testDispatcher,
} from '../support/webhook-delivery-fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// Two dispatchers on two pools (two processes, as far as PostgreSQL can tell), each with four
// workers, delivering to seven endpoints while changes pour in: never two deliveries to one
// endpoint at once, each endpoint's in queue order (each tenant's in commit order), every event
// exactly once since the receiver never fails.
const TENANTS = 3;
const EVENTS_PER_TENANT = 40;

let database: TestDatabase;
let second: DatabaseHandle;
let receiver: WebhookReceiver;
const dispatchers: WebhookDispatcher[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  if (!database.url) throw new Error('this test needs PostgreSQL');
  second = await openDatabase({ kind: 'postgres', url: database.url, poolSize: 8 });
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  for (const dispatcher of dispatchers) await dispatcher.stop();
  await receiver?.close();
  await second?.close();
  await database?.close();
});

/** A stub DNS per dispatcher: the name is pinned to the receiver, and the lookups say who sent. */
function countingResolver(): Resolver & { calls: number } {
  const resolver = Object.assign(
    async () => {
      resolver.calls++;
      return [{ address: '127.0.0.1', family: 4 }];
    },
    { calls: 0 },
  );
  return resolver;
}

describe('two dispatchers on one PostgreSQL', () => {
  it("keep one delivery in flight per endpoint, a tenant's in queue order, each event once, under a burst", async () => {
    const tenantIds = await Promise.all(Array.from({ length: TENANTS }, () => insertTenantRow(database.db)));
    const endpoints = [];
    for (const [i, tenantId] of [...tenantIds, ...tenantIds, null].entries()) {
      const path = `/endpoint-${i}`;
      const secret = generateWebhookSecret();
      receiver.setSecret(path, secret);
      const url = `http://race.example.test:${receiver.port}${path}`;
      endpoints.push({ path, row: await insertEndpoint(database.db, { tenantId, url, secret }) });
    }
    // Answers take 0-10 ms: sends overlap, and the windows between claim and record are wide.
    receiver.answer = () => ({ status: 204, delayMs: Math.floor(Math.random() * 10) });
    const resolvers = [countingResolver(), countingResolver()];
    for (const [i, handle] of [database, second].entries()) {
      const dispatcher = testDispatcher(handle, {
        pollIntervalMs: 10,
        concurrency: 4,
        resolve: resolvers[i],
        random: Math.random,
      });
      dispatchers.push(dispatcher);
      dispatcher.start();
    }

    // The burst: every tenant written through both pools at once, while the workers deliver.
    await Promise.all(
      tenantIds.flatMap((tenantId) => [
        recordEvents(database.db, tenantId, EVENTS_PER_TENANT / 2),
        recordEvents(second.db, tenantId, EVENTS_PER_TENANT / 2),
      ]),
    );
    // Two tenant endpoints per tenant, and the platform endpoint that gets them all.
    const expected = TENANTS * EVENTS_PER_TENANT * 3;
    await receiver.waitFor(() => receiver.requests.length >= expected, 60_000, 'every delivery');
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));

    expect(receiver.requests).toHaveLength(expected);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    expect(new Set(receiver.requests.map((request) => request.webhookId)).size).toBe(expected);
    expect(
      resolvers.every((resolver) => resolver.calls > 0),
      'both dispatchers delivered',
    ).toBe(true);
    for (const { path, row } of endpoints) {
      expect(receiver.maxInFlight.get(path), path).toBe(1);
      const queue = await database.db
        .select({
          id: webhookDeliveries.id,
          status: webhookDeliveries.status,
          tenantId: auditEvents.tenantId,
        })
        .from(webhookDeliveries)
        .innerJoin(auditEvents, eq(auditEvents.id, webhookDeliveries.auditEventId))
        .where(eq(webhookDeliveries.endpointId, row.id))
        .orderBy(asc(webhookDeliveries.position));
      expect(queue.every((delivery) => delivery.status === 'DELIVERED')).toBe(true);
      expect(receiver.to(path), path).toHaveLength(queue.length);
      // What is promised is each tenant's order: the platform endpoint gets all three tenants, and
      // a tenant's delivery can commit after another tenant's with a higher position went out.
      for (const tenantId of tenantIds) {
        const received = receiver.to(path).filter((request) => request.payload?.data.tenantId === tenantId);
        expect(
          received.map((request) => request.webhookId),
          `${path}: the tenant's queue order`,
        ).toEqual(queue.filter((delivery) => delivery.tenantId === tenantId).map((delivery) => delivery.id));
        // Position order is each tenant's commit order: its sequence, 1, 2, 3… as received.
        const sequences = received.map((request) => request.payload?.data.sequence);
        expect(sequences).toEqual(sequences.map((_, i) => i + 1));
      }
    }
  }, 120_000);

  it('claims an endpoint against every other pool until the transaction ends, idle up to 30 s', async () => {
    const [mine, other] = [
      createDeliveryClaims(database.db, 'postgres'),
      createDeliveryClaims(second.db, 'postgres'),
    ];
    const [id, otherId] = [randomUUID(), randomUUID()];
    const idle = async () => {};
    let setting: string | undefined;
    expect(
      await mine.withEndpoint(id, async (session) => {
        const [row] = rowsOf<{ value: string }>(
          await session.read.execute(
            sql`select current_setting('idle_in_transaction_session_timeout') as value`,
          ),
        );
        setting = row?.value;
        expect(await other.withEndpoint(id, idle), 'another pool').toBe(false);
        expect(await mine.withEndpoint(id, idle), 'another worker of this process').toBe(false);
        expect(await other.withEndpoint(otherId, idle), 'another endpoint').toBe(true);
      }),
    ).toBe(true);
    expect(setting).toBe('30s');
    expect(await other.withEndpoint(id, idle), 'once released').toBe(true);
  });

  it('measures deliveries per second through one endpoint', async () => {
    receiver.requests.length = 0;
    receiver.answer = () => ({ status: 204 });
    // One endpoint alone: the race's (the platform one would get these events too) are paused.
    await database.db.update(webhookEndpoints).set({ enabled: false });
    const tenantId = await insertTenantRow(database.db);
    const secret = generateWebhookSecret();
    receiver.setSecret('/throughput', secret);
    const count = 300;
    const endpoint = await insertEndpoint(database.db, {
      tenantId,
      url: receiver.url('/throughput'),
      secret,
    });
    await recordEvents(database.db, tenantId, count);
    const dispatcher = testDispatcher(database);
    const started = performance.now();
    expect(await dispatcher.drain({ now: afterWhatWasRecorded() })).toBe(count);
    const seconds = (performance.now() - started) / 1000;
    console.warn(
      `webhook throughput: ${count} deliveries to one endpoint in ${seconds.toFixed(2)} s, ${Math.round(count / seconds)}/s`,
    );
    expect(receiver.to('/throughput').map((request) => request.verified)).toEqual(Array(count).fill(true));
    expect(receiver.maxInFlight.get('/throughput')).toBe(1);
    expect(endpoint.enabled).toBe(true);
  }, 120_000);
});
