import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { webhookEndpoints } from '../../src/db/schema.js';
import { type Actor, createActor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { hookBody, registerAs, type WebhookWorld, webhookWorld } from './helpers.js';

let h: TestServer;
let superAdmin: Actor;
let outsider: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
  outsider = await createActor(h);
});
afterAll(() => h?.close());

/** A tenant's endpoints as stored, secrets included: a refused change must leave them exactly so. */
async function endpointsOf(db: Database, tenantId: string) {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.tenantId, tenantId))
    .orderBy(asc(webhookEndpoints.id));
  return JSON.stringify(rows);
}

/** Every change of the API on one endpoint (and one of its deliveries), as `actor`. */
function changesAs(actor: Actor, w: WebhookWorld, webhookId: string, deliveryId: string) {
  const sdk = sdkOf(h, actor).webhooks;
  return {
    create: () => sdk.create(w.tenantId, hookBody()),
    update: () => sdk.update(w.tenantId, webhookId, { enabled: false }),
    remove: () => sdk.remove(w.tenantId, webhookId),
    rotateSecret: () => sdk.rotateSecret(w.tenantId, webhookId),
    retryDelivery: () => sdk.retryDelivery(w.tenantId, webhookId, deliveryId),
  };
}

function readsAs(actor: Actor, w: WebhookWorld, webhookId: string) {
  const sdk = sdkOf(h, actor).webhooks;
  return {
    list: () => sdk.list(w.tenantId),
    get: () => sdk.get(w.tenantId, webhookId),
    listDeliveries: () => sdk.listDeliveries(w.tenantId, webhookId),
  };
}

/** A world with one endpoint, which has one delivery queued (its own creation's event). */
async function worldWithEndpoint() {
  const w = await webhookWorld(h);
  const { webhookId } = await registerAs(h, w.owner, w.tenantId);
  const [delivery] = (await sdkOf(h, w.owner).webhooks.listDeliveries(w.tenantId, webhookId)).items;
  return { w, webhookId, deliveryId: delivery?.deliveryId ?? '' };
}

describe('who may change a tenant’s endpoints', () => {
  it('an ADMIN may not: 403 INSUFFICIENT_ROLE on every change, and nothing changes', async () => {
    const { w, webhookId, deliveryId } = await worldWithEndpoint();
    const before = await endpointsOf(h.db, w.tenantId);
    for (const [name, change] of Object.entries(changesAs(w.admin, w, webhookId, deliveryId))) {
      const answer = await refusal(change());
      expect({ name, ...answer }).toEqual({ name, ...refused(403, 'INSUFFICIENT_ROLE') });
    }
    expect(await endpointsOf(h.db, w.tenantId)).toBe(before);
  });

  it.each(['teacher', 'student'] as const)(
    'a %s may neither change nor read: 403 INSUFFICIENT_ROLE',
    async (who) => {
      const { w, webhookId, deliveryId } = await worldWithEndpoint();
      const before = await endpointsOf(h.db, w.tenantId);
      const calls = { ...changesAs(w[who], w, webhookId, deliveryId), ...readsAs(w[who], w, webhookId) };
      for (const [name, call] of Object.entries(calls)) {
        expect({ name, ...(await refusal(call())) }).toEqual({ name, ...refused(403, 'INSUFFICIENT_ROLE') });
      }
      expect(await endpointsOf(h.db, w.tenantId)).toBe(before);
    },
  );

  it('a non-member learns nothing: 403 TENANT_ACCESS_DENIED, as for a tenant that does not exist', async () => {
    const { w, webhookId, deliveryId } = await worldWithEndpoint();
    const before = await endpointsOf(h.db, w.tenantId);
    const calls = { ...changesAs(outsider, w, webhookId, deliveryId), ...readsAs(outsider, w, webhookId) };
    for (const [name, call] of Object.entries(calls)) {
      expect({ name, ...(await refusal(call())) }).toEqual({ name, ...refused(403, 'TENANT_ACCESS_DENIED') });
    }
    expect(await endpointsOf(h.db, w.tenantId)).toBe(before);
  });

  it('the OWNER and a super administrator may do everything', async () => {
    for (const who of ['owner', 'superAdmin'] as const) {
      const { w, webhookId, deliveryId } = await worldWithEndpoint();
      const actor = who === 'owner' ? w.owner : superAdmin;
      const changes = changesAs(actor, w, webhookId, deliveryId);
      expect((await changes.create()).secret).toBeTruthy();
      expect((await changes.update()).enabled).toBe(false);
      expect((await changes.rotateSecret()).secret).toBeTruthy();
      expect((await changes.retryDelivery()).status).toBe('PENDING');
      await changes.remove();
    }
  });
});

describe('who may read them', () => {
  it('an ADMIN lists, gets and lists deliveries', async () => {
    const { w, webhookId, deliveryId } = await worldWithEndpoint();
    const reads = readsAs(w.admin, w, webhookId);
    expect((await reads.list()).items.map((e) => e.webhookId)).toEqual([webhookId]);
    expect((await reads.get()).webhookId).toBe(webhookId);
    expect((await reads.listDeliveries()).items.map((d) => d.deliveryId)).toEqual([deliveryId]);
  });

  it('a super administrator too, in any tenant; a tenant that does not exist is 404 TENANT_NOT_FOUND', async () => {
    const { w, webhookId } = await worldWithEndpoint();
    expect((await readsAs(superAdmin, w, webhookId).get()).webhookId).toBe(webhookId);
    const gone = { ...w, tenantId: '01900000-0000-7000-8000-00000000dead' };
    expect(await refusal(readsAs(superAdmin, gone, webhookId).list())).toEqual(
      refused(404, 'TENANT_NOT_FOUND'),
    );
  });
});

describe('the scope rule', () => {
  it('another tenant’s endpoint is 404 WEBHOOK_NOT_FOUND, for reads and changes, and is left alone', async () => {
    const mine = await worldWithEndpoint();
    const theirs = await worldWithEndpoint();
    const before = await endpointsOf(h.db, theirs.w.tenantId);
    const calls = {
      ...changesAs(mine.w.owner, mine.w, theirs.webhookId, theirs.deliveryId),
      ...readsAs(mine.w.owner, mine.w, theirs.webhookId),
    };
    const { create: _create, list: _list, ...scoped } = calls;
    for (const [name, call] of Object.entries(scoped)) {
      expect({ name, ...(await refusal(call())) }).toEqual({ name, ...refused(404, 'WEBHOOK_NOT_FOUND') });
    }
    expect(await endpointsOf(h.db, theirs.w.tenantId)).toBe(before);
  });

  it('a delivery of another endpoint is 404 WEBHOOK_DELIVERY_NOT_FOUND', async () => {
    const { w, webhookId } = await worldWithEndpoint();
    const other = await registerAs(h, w.owner, w.tenantId);
    const [foreign] = (await sdkOf(h, w.owner).webhooks.listDeliveries(w.tenantId, other.webhookId)).items;
    expect(
      await refusal(
        sdkOf(h, w.owner).webhooks.retryDelivery(w.tenantId, webhookId, foreign?.deliveryId ?? ''),
      ),
    ).toEqual(refused(404, 'WEBHOOK_DELIVERY_NOT_FOUND'));
  });

  it('a tenant’s delivery through /admin/webhooks is WEBHOOK_NOT_FOUND, its endpoint not being the platform’s', async () => {
    const { webhookId, deliveryId } = await worldWithEndpoint();
    const admin = sdkOf(h, superAdmin).platformWebhooks;
    expect(await refusal(admin.retryDelivery(webhookId, deliveryId))).toEqual(
      refused(404, 'WEBHOOK_NOT_FOUND'),
    );
    expect(await refusal(admin.listDeliveries(webhookId))).toEqual(refused(404, 'WEBHOOK_NOT_FOUND'));
  });
});
