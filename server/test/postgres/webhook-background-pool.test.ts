import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signing.js';
import { untilWaitingForLocks } from '../support/lock-waits.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';
import {
  deliveriesOf,
  insertEndpoint,
  insertTenantRow,
  recordEvents,
  testDispatcher,
} from '../support/webhook-delivery-fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// Delivery runs on a pool of its own: writes to one busy tenant can hold every connection of the
// requests' pool while they wait for its lock, and a worker queued behind them would deliver
// nothing until the load passed (seen in the bench: a backlog of 873 events after 10 s).
let bare: BareDatabase;
let handle: DatabaseHandle;
let receiver: WebhookReceiver;
let locker: postgres.Sql;
const secret = generateWebhookSecret();

beforeAll(async () => {
  bare = await createBareDatabase();
  handle = await openDatabase({ kind: 'postgres', url: bare.url, poolSize: 1 }, { backgroundPoolSize: 2 });
  receiver = await WebhookReceiver.start({ secret });
  locker = postgres(bare.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await locker?.end();
  await receiver?.close();
  await handle?.close();
  await bare?.drop();
});

describe('the delivery worker’s own pool (PostgreSQL)', () => {
  it('delivers while every connection of the requests’ pool waits for a lock', async () => {
    const tenantId = await insertTenantRow(handle.db);
    const endpoint = await insertEndpoint(handle.db, {
      tenantId,
      url: receiver.url('/busy'),
      events: ['*'],
      secret,
    });
    await recordEvents(handle.db, tenantId, 5);
    expect(handle.background).toBeDefined();

    // The requests' only connection waits for the tenants table, which another session holds.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = locker.begin(async (tx) => {
      await tx`lock table tenants in access exclusive mode`;
      locked();
      await released;
    });
    await isLocked;
    // Drizzle's queries start when awaited: `then` sends it now.
    const blocked = handle.db.execute(sql`select count(*) from tenants`).then(() => true);
    await untilWaitingForLocks(locker);

    const dispatcher = testDispatcher({ db: handle.background ?? handle.db, kind: 'postgres' });
    expect(await dispatcher.drain({ run: 20 })).toBe(1);
    expect(receiver.to('/busy')).toHaveLength(5);

    release();
    await holder;
    await blocked;
    const deliveries = await deliveriesOf(handle.db, endpoint.id);
    expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(5).fill('DELIVERED'));
  });
});
