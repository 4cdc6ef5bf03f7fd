import { type AuditEvent, WebhookDeliverySchema } from '@tms/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.js';
import { type Actor, createActor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { missingId } from '../support/memberships.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { hookBody, registerAs, webhookWorld } from './helpers.js';

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

/** The endpoint's events, oldest first, as GET /tenants/:tenantId/audit-events shows them. */
async function eventsOf(reader: Actor, tenantId: string, webhookId: string): Promise<AuditEvent[]> {
  const page = await sdkOf(h, reader).auditEvents.listForTenant(tenantId, { targetId: webhookId });
  return page.items.reverse();
}

describe('the audit trail of an endpoint', () => {
  it('records each change with the endpoint before and after, never its secret', async () => {
    const w = await webhookWorld(h);
    const sdk = sdkOf(h, w.owner).webhooks;
    const { secret, ...created } = await registerAs(h, w.owner, w.tenantId);
    const updated = await sdk.update(w.tenantId, created.webhookId, { description: 'CRM sync' });
    const { secret: newSecret, ...rotated } = await sdk.rotateSecret(w.tenantId, created.webhookId);
    await sdk.remove(w.tenantId, created.webhookId);
    const events = await eventsOf(w.admin, w.tenantId, created.webhookId);
    const actor = { userId: w.owner.userId, subject: w.owner.subject, isSuperAdmin: false };
    const target = { type: 'webhook', id: created.webhookId };
    expect(events).toMatchObject([
      { action: 'webhook.created', tenantId: w.tenantId, actor, target, before: null, after: created },
      { action: 'webhook.updated', actor, target, before: created, after: updated },
      { action: 'webhook.secret_rotated', actor, target, before: updated, after: rotated },
      { action: 'webhook.deleted', actor, target, before: rotated, after: null },
    ]);
    const trail = JSON.stringify(events);
    expect(trail).not.toContain(secret);
    expect(trail).not.toContain(newSecret);
    expect(trail).not.toContain('whsec_');
  });

  it('records a platform endpoint’s changes as platform events (tenantId null)', async () => {
    const admin = sdkOf(h, superAdmin);
    const { secret: _secret, ...created } = await admin.platformWebhooks.create(hookBody());
    const paused = await admin.platformWebhooks.update(created.webhookId, { enabled: false });
    const page = await admin.auditEvents.list({ targetId: created.webhookId });
    expect(page.items.reverse()).toMatchObject([
      { action: 'webhook.created', tenantId: null, before: null, after: created },
      { action: 'webhook.updated', tenantId: null, before: created, after: paused },
    ]);
  });

  it('a refused change records nothing', async () => {
    const w = await webhookWorld(h);
    const { webhookId } = await registerAs(h, w.owner, w.tenantId);
    await refusal(sdkOf(h, w.admin).webhooks.update(w.tenantId, webhookId, { enabled: false }));
    await refusal(sdkOf(h, w.owner).webhooks.update(w.tenantId, webhookId, { url: 'http://10.0.0.1/x' }));
    expect((await eventsOf(w.owner, w.tenantId, webhookId)).map((e) => e.action)).toEqual([
      'webhook.created',
    ]);
  });
});

describe('deliveries', () => {
  it('a membership change queues a PENDING delivery per endpoint that wants it, listed newest first', async () => {
    const w = await webhookWorld(h);
    const all = await registerAs(h, w.owner, w.tenantId);
    const some = await registerAs(h, w.owner, w.tenantId, hookBody({ events: ['membership.created'] }));
    const none = await registerAs(h, w.owner, w.tenantId, hookBody({ events: ['invitation.created'] }));
    const member = await createActor(h);
    const membership = await sdkOf(h, w.owner).memberships.create(w.tenantId, {
      role: 'STUDENT',
      userId: member.userId,
    });
    const sdk = sdkOf(h, w.admin).webhooks;
    const [newest] = (await sdk.listDeliveries(w.tenantId, all.webhookId)).items;
    const [event] = (await sdkOf(h, w.owner).auditEvents.listForTenant(w.tenantId, { limit: 1 })).items;
    expect(event).toMatchObject({
      action: 'membership.created',
      target: { id: membership.tenantMembershipId },
    });
    expect(WebhookDeliverySchema.strict().parse(newest)).toMatchObject({
      webhookId: all.webhookId,
      auditEventId: event?.auditEventId,
      type: 'membership.created',
      status: 'PENDING',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      deliveredAt: null,
      nextAttemptAt: expect.any(String),
    });
    // `all` also has its own creation and the two endpoints created after it.
    const types = (await sdk.listDeliveries(w.tenantId, all.webhookId)).items.map((d) => d.type);
    expect(types).toEqual(['membership.created', 'webhook.created', 'webhook.created', 'webhook.created']);
    expect((await sdk.listDeliveries(w.tenantId, some.webhookId)).items.map((d) => d.type)).toEqual([
      'membership.created',
    ]);
    expect((await sdk.listDeliveries(w.tenantId, none.webhookId)).items).toEqual([]);
  });

  it('pages by cursor and filters by status', async () => {
    const w = await webhookWorld(h);
    const { webhookId } = await registerAs(h, w.owner, w.tenantId);
    for (let i = 0; i < 3; i++)
      await registerAs(h, w.owner, w.tenantId, hookBody({ events: ['tenant.created'] }));
    const sdk = sdkOf(h, w.owner).webhooks;
    const everything = (await sdk.listDeliveries(w.tenantId, webhookId, { limit: 100 })).items;
    expect(everything).toHaveLength(4);
    const first = await sdk.listDeliveries(w.tenantId, webhookId, { limit: 3 });
    const second = await sdk.listDeliveries(w.tenantId, webhookId, {
      limit: 3,
      cursor: first.nextCursor ?? '',
    });
    expect([...first.items, ...second.items]).toEqual(everything);
    expect(second.nextCursor).toBeNull();
    const [oldest] = everything.slice(-1);
    await h.db
      .update(webhookDeliveries)
      .set({ status: 'FAILED', attempts: 9, lastStatusCode: 500 })
      .where(eq(webhookDeliveries.id, oldest?.deliveryId ?? ''));
    const failed = await sdk.listDeliveries(w.tenantId, webhookId, { status: 'FAILED' });
    expect(failed.items.map((d) => d.deliveryId)).toEqual([oldest?.deliveryId]);
    expect(failed.items[0]?.nextAttemptAt).toBeNull();
    expect(await refusal(sdk.listDeliveries(w.tenantId, webhookId, { cursor: 'bm90LW91cnM' }))).toEqual(
      refused(400, 'VALIDATION_FAILED'),
    );
  });

  it('retry makes a FAILED delivery PENDING and due now, keeping its attempts and place; not an audit event', async () => {
    const w = await webhookWorld(h);
    const { webhookId } = await registerAs(h, w.owner, w.tenantId);
    const sdk = sdkOf(h, w.owner).webhooks;
    const [delivery] = (await sdk.listDeliveries(w.tenantId, webhookId)).items;
    const id = delivery?.deliveryId ?? '';
    const [before] = await h.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    await h.db
      .update(webhookDeliveries)
      .set({
        status: 'FAILED',
        attempts: 9,
        lastStatusCode: 500,
        nextAttemptAt: new Date(Date.now() + 86_400_000),
      })
      .where(eq(webhookDeliveries.id, id));
    const retried = await sdk.retryDelivery(w.tenantId, webhookId, id);
    expect(retried).toMatchObject({ deliveryId: id, status: 'PENDING', attempts: 9, lastStatusCode: 500 });
    expect(Date.parse(retried.nextAttemptAt ?? '')).toBeLessThanOrEqual(Date.now());
    const [after] = await h.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    expect(after?.position).toBe(before?.position);
    expect((await eventsOf(w.owner, w.tenantId, webhookId)).map((e) => e.action)).toEqual([
      'webhook.created',
    ]);
    expect(await refusal(sdk.retryDelivery(w.tenantId, webhookId, missingId()))).toEqual(
      refused(404, 'WEBHOOK_DELIVERY_NOT_FOUND'),
    );
  });

  it('a paused endpoint keeps its queue but gets nothing new', async () => {
    const w = await webhookWorld(h);
    const { webhookId } = await registerAs(h, w.owner, w.tenantId);
    await sdkOf(h, w.owner).webhooks.update(w.tenantId, webhookId, { enabled: false });
    const member = await createActor(h);
    await sdkOf(h, w.owner).memberships.create(w.tenantId, { role: 'STUDENT', userId: member.userId });
    const queued = (await sdkOf(h, w.owner).webhooks.listDeliveries(w.tenantId, webhookId)).items;
    expect(queued.map((d) => d.type)).toEqual(['webhook.created']);
  });

  it('a platform endpoint receives every tenant’s events', async () => {
    const admin = sdkOf(h, superAdmin);
    const { webhookId } = await admin.platformWebhooks.create(hookBody({ events: ['membership.created'] }));
    const w = await webhookWorld(h);
    const member = await createActor(h);
    await sdkOf(h, w.owner).memberships.create(w.tenantId, { role: 'STUDENT', userId: member.userId });
    const [delivery] = (await admin.platformWebhooks.listDeliveries(webhookId)).items;
    expect(delivery).toMatchObject({ type: 'membership.created', status: 'PENDING' });
    expect(await admin.platformWebhooks.retryDelivery(webhookId, delivery?.deliveryId ?? '')).toMatchObject({
      status: 'PENDING',
    });
  });
});
