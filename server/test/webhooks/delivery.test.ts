import { and, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, webhookEndpoints } from '../../src/db/schema.js';
import { toAuditEventDto } from '../../src/modules/audit/audit-events.dto.js';
import { purgeExpiredAuditEvents } from '../../src/modules/audit/audit-retention.js';
import { RETRY_DELAYS_MS } from '../../src/modules/webhooks/delivery-schedule.js';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signing.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../support/test-database.js';
import {
  deliveriesOf,
  endpointRow,
  HOUR,
  insertEndpoint,
  insertTenantRow,
  MINUTE,
  maintainAuditTrail,
  recordEvents,
  returns,
  SECOND,
  testDispatcher,
} from '../support/webhook-delivery-fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// The delivery worker against a real receiver on 127.0.0.1, driven without timers: every drain
// runs at an instant the test picks, so the retry schedule and the day that disables an endpoint
// are stepped through, not waited for.
let database: TestDatabase;
let receiver: WebhookReceiver;
const secret = generateWebhookSecret();
const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

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

/** A tenant with one endpoint at `path` of the receiver. */
async function tenantWithEndpoint(path: string, events = ['*']) {
  const tenantId = await insertTenantRow(database.db);
  const endpoint = await insertEndpoint(database.db, { tenantId, url: receiver.url(path), events, secret });
  return { tenantId, endpoint };
}

describe(`webhook delivery (${testDatabaseKind()})`, () => {
  it('POSTs each event once, signed, with the audit event as the API shows it, built at send time', async () => {
    const { tenantId, endpoint } = await tenantWithEndpoint('/basic');
    await recordEvents(database.db, tenantId, 3);
    // An erasure rewrites the trail after the event was queued: what goes out is the rewritten row.
    const [third] = await deliveriesOf(database.db, endpoint.id).then((rows) => rows.slice(2));
    await maintainAuditTrail(
      database.db,
      sql`update audit_events set after = '{"name":"[erased]"}' where id = ${third?.auditEventId}`,
    );
    expect(await testDispatcher(database).drain({ now: T0 })).toBe(3);

    const deliveries = await deliveriesOf(database.db, endpoint.id);
    const got = receiver.to('/basic');
    expect(got.map((request) => request.webhookId)).toEqual(deliveries.map((delivery) => delivery.id));
    for (const [i, request] of got.entries()) {
      const delivery = deliveries[i];
      const [event] = await database.db
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.id, delivery?.auditEventId ?? ''));
      if (!event || !delivery) throw new Error('missing row');
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.verified, request.verifyError).toBe(true);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
      expect(JSON.parse(request.body)).toEqual({
        type: 'tenant.updated',
        timestamp: event.occurredAt.toISOString(),
        data: toAuditEventDto(event),
      });
      expect(delivery).toMatchObject({
        status: 'DELIVERED',
        attempts: 1,
        lastStatusCode: 204,
        deliveredAt: T0,
      });
    }
    expect(got.map((request) => request.payload?.data.after)).toEqual([
      { name: 'change 1' },
      { name: 'change 2' },
      { name: '[erased]' },
    ]);
    // Sent once: nothing is due any more.
    expect(await testDispatcher(database).drain({ now: at(HOUR) })).toBe(0);
  });

  it('signs with the previous secret too while the rotation day lasts, then with the new one only', async () => {
    const previous = generateWebhookSecret();
    const { tenantId, endpoint } = await tenantWithEndpoint('/rotated');
    await database.db
      .update(webhookEndpoints)
      .set({ previousSecret: previous, previousSecretUntil: at(HOUR) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await recordEvents(database.db, tenantId, 1);
    await testDispatcher(database).drain({ now: T0 });
    await recordEvents(database.db, tenantId, 1);
    await testDispatcher(database).drain({ now: at(HOUR + SECOND) });

    const [during, after] = receiver.to('/rotated');
    const verifies = (request: typeof during, key: string) =>
      returns(() => new Webhook(key).verify(request?.body ?? '', request?.headers as Record<string, string>));
    expect(String(during?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifies(during, secret), verifies(during, previous)]).toEqual([true, true]);
    expect(String(after?.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([verifies(after, secret), verifies(after, previous)]).toEqual([true, false]);
  });

  it('retries a failing receiver on the schedule, holding later events behind the head, then delivers all in order', async () => {
    const { tenantId, endpoint } = await tenantWithEndpoint('/flaky');
    let failures = 3;
    receiver.answer = () => (failures-- > 0 ? { status: 500, body: 'down for a deploy' } : { status: 200 });
    await recordEvents(database.db, tenantId, 3);
    const dispatcher = testDispatcher(database);

    expect(await dispatcher.drain({ now: T0 })).toBe(1);
    let [head, second] = await deliveriesOf(database.db, endpoint.id);
    expect(head).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastStatusCode: 500,
      lastError: null,
      lastResponse: 'down for a deploy',
      lastAttemptAt: T0,
      nextAttemptAt: at(5 * SECOND),
    });
    expect(second).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect((await endpointRow(database.db, endpoint.id)).failingSince).toEqual(T0);
    // Backing off: nothing is sent, not even the events behind the head, which are due.
    expect(await dispatcher.drain({ now: at(4 * SECOND) })).toBe(0);

    expect(await dispatcher.drain({ now: at(5 * SECOND) })).toBe(1);
    [head] = await deliveriesOf(database.db, endpoint.id);
    expect(head?.nextAttemptAt).toEqual(at(5 * SECOND + 5 * MINUTE));
    expect(await dispatcher.drain({ now: at(5 * SECOND + 5 * MINUTE) })).toBe(1);
    [head] = await deliveriesOf(database.db, endpoint.id);
    expect(head?.nextAttemptAt).toEqual(at(5 * SECOND + 35 * MINUTE));
    // Recovered: the head, then the two behind it, in one go.
    expect(await dispatcher.drain({ now: at(5 * SECOND + 35 * MINUTE) })).toBe(3);

    const deliveries = await deliveriesOf(database.db, endpoint.id);
    const ids = deliveries.map((delivery) => delivery.id);
    const sent = receiver.to('/flaky').map((request) => request.webhookId);
    expect(sent).toEqual([...Array(4).fill(ids[0]), ids[1], ids[2]]);
    expect(receiver.to('/flaky').every((request) => request.verified)).toBe(true);
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual([
      ['DELIVERED', 4],
      ['DELIVERED', 1],
      ['DELIVERED', 1],
    ]);
    expect((await endpointRow(database.db, endpoint.id)).failingSince).toBeNull();
  });

  it('keeps one delivery in flight per endpoint: a held head holds its queue, not the others', async () => {
    const slow = await tenantWithEndpoint('/held');
    const fast = await tenantWithEndpoint('/free');
    receiver.answer = (request) => (request.path === '/held' ? 'hold' : { status: 204 });
    await recordEvents(database.db, slow.tenantId, 3);
    const dispatcher = testDispatcher(database);

    const held = dispatcher.runOnce({ now: T0 });
    await receiver.waitFor(() => receiver.heldCount === 1);
    // Meanwhile the other workers go on: the free endpoint's queue drains, the held one waits.
    await recordEvents(database.db, fast.tenantId, 3);
    expect(await dispatcher.drain({ now: T0 })).toBe(3);
    expect(receiver.to('/free')).toHaveLength(3);
    expect(receiver.to('/held')).toHaveLength(1);

    receiver.answer = () => ({ status: 204 });
    receiver.release();
    await held;
    expect(await dispatcher.drain({ now: T0 })).toBe(2);
    const order = (await deliveriesOf(database.db, slow.endpoint.id)).map((delivery) => delivery.id);
    expect(receiver.to('/held').map((request) => request.webhookId)).toEqual(order);
    expect(receiver.maxInFlight.get('/held')).toBe(1);
  });

  it('fails a delivery when the schedule runs out, disables the endpoint after a day, and moves on once it is enabled', async () => {
    const { tenantId, endpoint } = await tenantWithEndpoint('/down');
    // A platform endpoint that wants only webhook.disabled: the disabling goes through the outbox.
    const watcher = await insertEndpoint(database.db, {
      url: receiver.url('/watcher'),
      events: ['webhook.disabled'],
      secret,
    });
    receiver.answer = (request) => (request.path === '/down' ? { status: 503 } : { status: 204 });
    await recordEvents(database.db, tenantId, 2);
    const dispatcher = testDispatcher(database);

    let now = T0;
    for (let attempt = 1; attempt <= 8; attempt++) {
      expect(await dispatcher.drain({ now }), `attempt ${attempt}`).toBeGreaterThanOrEqual(1);
      const [head] = await deliveriesOf(database.db, endpoint.id);
      if (attempt < 8) now = head?.nextAttemptAt ?? now;
    }
    // 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27.5 hours.
    expect(now.getTime() - T0.getTime()).toBe(RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0));
    const [failed, waiting] = await deliveriesOf(database.db, endpoint.id);
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 8, lastStatusCode: 503 });
    expect(waiting).toMatchObject({ status: 'PENDING', attempts: 0 });
    const disabled = await endpointRow(database.db, endpoint.id);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'FAILING' });

    const [event] = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'webhook.disabled'), eq(auditEvents.targetId, endpoint.id)));
    expect(event && toAuditEventDto(event)).toMatchObject({
      tenantId,
      actor: { userId: null, subject: null, isSuperAdmin: false },
      target: { type: 'webhook', id: endpoint.id },
      before: { webhookId: endpoint.id, enabled: true, disabledReason: null },
      after: { webhookId: endpoint.id, enabled: false, disabledReason: 'FAILING' },
    });
    expect(JSON.stringify(event)).not.toContain(secret);
    // The watcher got it; the disabled endpoint's queue waits, however late it gets.
    expect(receiver.to('/watcher').map((request) => request.payload?.type)).toEqual(['webhook.disabled']);
    expect(await dispatcher.drain({ now: at(100 * HOUR) })).toBe(0);
    expect(receiver.to('/down')).toHaveLength(8);

    // Enabled again (what PATCH enabled=true does): the next delivery goes; the FAILED one stays.
    await database.db
      .update(webhookEndpoints)
      .set({ enabled: true, disabledReason: null, failingSince: null })
      .where(eq(webhookEndpoints.id, endpoint.id));
    receiver.answer = () => ({ status: 204 });
    expect(await dispatcher.drain({ now: at(100 * HOUR) })).toBe(1);
    expect(receiver.to('/down').at(-1)?.webhookId).toBe(waiting?.id);
    const statuses = (await deliveriesOf(database.db, endpoint.id)).map((delivery) => delivery.status);
    expect(statuses).toEqual(['FAILED', 'DELIVERED']);
    expect(watcher.enabled).toBe(true);
  });

  it('disables an endpoint only once a failure comes more than a day after the first one', async () => {
    const { tenantId, endpoint } = await tenantWithEndpoint('/day');
    receiver.answer = () => ({ status: 500 });
    await database.db
      .update(webhookEndpoints)
      .set({ failingSince: at(-23 * HOUR) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await recordEvents(database.db, tenantId, 1);
    const dispatcher = testDispatcher(database);
    await dispatcher.drain({ now: T0 });
    expect(await endpointRow(database.db, endpoint.id)).toMatchObject({
      enabled: true,
      failingSince: at(-23 * HOUR),
    });
    await dispatcher.drain({ now: at(HOUR + 5 * SECOND) });
    expect(await endpointRow(database.db, endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'FAILING',
    });
  });

  it('fails a queued delivery whose event was purged, without a send, and moves on', async () => {
    const { tenantId, endpoint } = await tenantWithEndpoint('/purged');
    await recordEvents(database.db, tenantId, 2);
    const [first] = await deliveriesOf(database.db, endpoint.id);
    await maintainAuditTrail(database.db, sql`delete from audit_events where id = ${first?.auditEventId}`);
    expect(await testDispatcher(database).drain({ now: T0 })).toBe(2);
    const [gone, sent] = await deliveriesOf(database.db, endpoint.id);
    expect(gone).toMatchObject({
      status: 'FAILED',
      attempts: 0,
      lastError: expect.stringContaining('purged'),
    });
    expect(receiver.to('/purged').map((request) => request.webhookId)).toEqual([sent?.id]);
  });

  it('purges finished deliveries past the audit retention, never pending ones', async () => {
    const { tenantId, endpoint } = await tenantWithEndpoint('/retention');
    await recordEvents(database.db, tenantId, 2);
    // One attempt per endpoint and run: the head goes, the second waits.
    expect(await testDispatcher(database).runOnce({ now: T0 })).toBe(1);
    // Made 400 days ago (the events' own times cannot be rewritten: the trail refuses it).
    await database.db.execute(sql`
      update webhook_deliveries set created_at = now() - interval '400 days' where endpoint_id = ${endpoint.id}`);
    await purgeExpiredAuditEvents(database.db, 365);
    const left = await deliveriesOf(database.db, endpoint.id);
    expect(left.map((delivery) => [delivery.status, delivery.attempts])).toEqual([['PENDING', 0]]);
  });
});
