import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signing.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../support/test-database.js';
import {
  deliveriesOf,
  insertEndpoint,
  insertTenantRow,
  recordEvents,
  SECOND,
  testDispatcher,
} from '../support/webhook-delivery-fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// Runs: a background worker sends several deliveries of one endpoint on one claim and one read, and
// records them together. A failure ends the run there, with what went before it recorded as
// delivered: order and at-least-once hold exactly as one delivery per claim.
let database: TestDatabase;
let receiver: WebhookReceiver;
const secret = generateWebhookSecret();
const T0 = new Date(Date.now() + 60 * SECOND);

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

async function queueOf(path: string, events: number) {
  const tenantId = await insertTenantRow(database.db);
  const endpoint = await insertEndpoint(database.db, {
    tenantId,
    url: receiver.url(path),
    events: ['*'],
    secret,
  });
  await recordEvents(database.db, tenantId, events);
  return endpoint.id;
}

describe(`webhook delivery in runs (${testDatabaseKind()})`, () => {
  it('sends a queue in order on one claim, and records every delivery of the run', async () => {
    const endpointId = await queueOf('/run', 12);
    const dispatcher = testDispatcher(database, { concurrency: 1 });
    expect(await dispatcher.runOnce({ now: T0, run: 20 })).toBe(1);

    const deliveries = await deliveriesOf(database.db, endpointId);
    expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(12).fill('DELIVERED'));
    expect(deliveries.map((delivery) => delivery.attempts)).toEqual(Array(12).fill(1));
    expect(deliveries.map((delivery) => delivery.lastStatusCode)).toEqual(Array(12).fill(204));
    expect(receiver.to('/run').map((request) => request.webhookId)).toEqual(deliveries.map((d) => d.id));
    expect(receiver.maxInFlight.get('/run')).toBe(1);
  });

  it('stops a run at the first failure: those before it delivered, it backs off, the rest wait', async () => {
    const endpointId = await queueOf('/fails-third', 5);
    let seen = 0;
    receiver.answer = () => (++seen === 3 ? { status: 500, body: 'down' } : { status: 204 });
    const dispatcher = testDispatcher(database, { concurrency: 1 });
    expect(await dispatcher.runOnce({ now: T0, run: 20 })).toBe(1);

    const after = await deliveriesOf(database.db, endpointId);
    expect(after.map((delivery) => delivery.status)).toEqual([
      'DELIVERED',
      'DELIVERED',
      'PENDING',
      'PENDING',
      'PENDING',
    ]);
    expect(after.map((delivery) => delivery.attempts)).toEqual([1, 1, 1, 0, 0]);
    expect(after[2]).toMatchObject({ lastStatusCode: 500, lastResponse: 'down' });
    expect(after[2]?.nextAttemptAt.getTime()).toBeGreaterThan(T0.getTime());
    expect(receiver.to('/fails-third')).toHaveLength(3);

    // Nothing is due until the failed head's retry; then the rest go, in order.
    expect(await dispatcher.drain({ now: T0, run: 20 })).toBe(0);
    const retryAt = after[2]?.nextAttemptAt ?? T0;
    expect(await dispatcher.drain({ now: retryAt, run: 20 })).toBe(1);
    const done = await deliveriesOf(database.db, endpointId);
    expect(done.map((delivery) => delivery.status)).toEqual(Array(5).fill('DELIVERED'));
    const ids = receiver.to('/fails-third').map((request) => request.webhookId);
    expect(ids).toEqual([0, 1, 2, 2, 3, 4].map((i) => done[i]?.id));
  });
});
