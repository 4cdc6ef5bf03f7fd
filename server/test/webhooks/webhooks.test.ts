import { WEBHOOKS_PER_OWNER_MAX, WebhookSchema, WebhookWithSecretSchema } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';
import { missingId } from '../support/memberships.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import {
  deliveryRows,
  endpointRow,
  hookBody,
  PUBLIC_URL,
  registerAs,
  SECRET,
  webhookWorld,
} from './helpers.js';

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

describe('create', () => {
  it('answers 201 with the endpoint and its whsec_ secret, enabled, a UUIDv7 id', async () => {
    const w = await webhookWorld(h);
    const created = WebhookWithSecretSchema.strict().parse(
      await registerAs(
        h,
        w.owner,
        w.tenantId,
        hookBody({ events: ['membership.created'], description: 'CRM' }),
      ),
    );
    expect(created).toMatchObject({
      tenantId: w.tenantId,
      url: PUBLIC_URL,
      events: ['membership.created'],
      description: 'CRM',
      enabled: true,
      disabledReason: null,
    });
    expect(created.secret).toMatch(SECRET);
    expect(created.webhookId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect((await endpointRow(h.db, created.webhookId))?.secret).toBe(created.secret);
  });

  it('never shows the secret again: not in get, list, update', async () => {
    const w = await webhookWorld(h);
    const created = await registerAs(h, w.owner, w.tenantId);
    const sdk = sdkOf(h, w.owner);
    const shown = [
      await sdk.webhooks.get(w.tenantId, created.webhookId),
      ...(await sdk.webhooks.list(w.tenantId)).items,
      await sdk.webhooks.update(w.tenantId, created.webhookId, { description: 'changed' }),
    ];
    for (const endpoint of shown) {
      expect(WebhookSchema.strict().parse(endpoint)).not.toHaveProperty('secret');
      expect(JSON.stringify(endpoint)).not.toContain(created.secret);
    }
  });

  it(`refuses an endpoint past ${WEBHOOKS_PER_OWNER_MAX} per tenant with 409 WEBHOOK_LIMIT_REACHED`, async () => {
    const t = await createTenantFixture(h);
    for (let i = 0; i < WEBHOOKS_PER_OWNER_MAX; i++) await registerAs(h, t.owner, t.tenantId);
    expect(await refusal(registerAs(h, t.owner, t.tenantId))).toEqual(refused(409, 'WEBHOOK_LIMIT_REACHED'));
    // Another tenant's count is its own; and one removed makes room again.
    const other = await createTenantFixture(h);
    await registerAs(h, other.owner, other.tenantId);
    const [first] = (await sdkOf(h, t.owner).webhooks.list(t.tenantId, { limit: 1 })).items;
    await sdkOf(h, t.owner).webhooks.remove(t.tenantId, first?.webhookId ?? '');
    await registerAs(h, t.owner, t.tenantId);
  });

  it('with an Idempotency-Key, a retried creation answers the first endpoint, not a second one', async () => {
    const w = await webhookWorld(h);
    const send = () =>
      fetch(`${h.baseUrl}/tenants/${w.tenantId}/webhooks`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${w.owner.token}`,
          'content-type': 'application/json',
          'idempotency-key': 'create-crm-hook',
        },
        body: JSON.stringify(hookBody()),
      });
    const first = await jsonOf(await send());
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await jsonOf(again)).toEqual(first);
    expect((await sdkOf(h, w.owner).webhooks.list(w.tenantId)).items).toHaveLength(1);
  });

  it('validates the body: an URL with credentials, no events, a repeated event, an unknown one', async () => {
    const w = await webhookWorld(h);
    for (const body of [
      { url: 'https://user:pw@93.184.215.14/x', events: ['*'] },
      { url: PUBLIC_URL, events: [] },
      { url: PUBLIC_URL, events: ['*', '*'] },
      { url: PUBLIC_URL, events: ['membership.exploded'] },
      { url: 'ftp://93.184.215.14/x', events: ['*'] },
      { url: PUBLIC_URL, events: ['*'], secret: 'whsec_mine' },
    ]) {
      const res = await fetch(`${h.baseUrl}/tenants/${w.tenantId}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await jsonOf(res)).error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('list and get', () => {
  it('lists the tenant’s endpoints oldest first, page by page', async () => {
    const w = await webhookWorld(h);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await registerAs(h, w.owner, w.tenantId)).webhookId);
    const sdk = sdkOf(h, w.admin);
    const first = await sdk.webhooks.list(w.tenantId, { limit: 2 });
    expect(first.items.map((e) => e.webhookId)).toEqual(ids.slice(0, 2));
    const second = await sdk.webhooks.list(w.tenantId, { limit: 2, cursor: first.nextCursor ?? '' });
    expect(second).toEqual({ items: [expect.objectContaining({ webhookId: ids[2] })], nextCursor: null });
  });

  it('gets one endpoint; a missing id is 404 WEBHOOK_NOT_FOUND', async () => {
    const w = await webhookWorld(h);
    const { secret: _secret, ...created } = await registerAs(h, w.owner, w.tenantId);
    expect(await sdkOf(h, w.admin).webhooks.get(w.tenantId, created.webhookId)).toEqual(created);
    expect(await refusal(sdkOf(h, w.owner).webhooks.get(w.tenantId, missingId()))).toEqual(
      refused(404, 'WEBHOOK_NOT_FOUND'),
    );
  });
});

describe('update', () => {
  it('changes url, events and description; null clears the description', async () => {
    const w = await webhookWorld(h);
    const created = await registerAs(h, w.owner, w.tenantId, hookBody({ description: 'first' }));
    const sdk = sdkOf(h, w.owner);
    const updated = await sdk.webhooks.update(w.tenantId, created.webhookId, {
      url: 'https://93.184.215.15/other',
      events: ['membership.removed', 'membership.created'],
    });
    expect(updated).toMatchObject({
      url: 'https://93.184.215.15/other',
      events: ['membership.removed', 'membership.created'],
      description: 'first',
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    const cleared = await sdk.webhooks.update(w.tenantId, created.webhookId, { description: null });
    expect(cleared.description).toBeNull();
  });

  it('pauses and resumes: enabling clears disabledReason and the failure streak, and makes the queue due now', async () => {
    const w = await webhookWorld(h);
    const { webhookId } = await registerAs(h, w.owner, w.tenantId);
    const sdk = sdkOf(h, w.owner);
    expect((await sdk.webhooks.update(w.tenantId, webhookId, { enabled: false })).enabled).toBe(false);
    // Its creation was queued; what the worker does to a failing endpoint, done behind the API's back.
    const later = new Date(Date.now() + 3_600_000);
    await h.db.execute(
      `update webhook_endpoints set disabled_reason = 'FAILING', failing_since = now() where id = '${webhookId}'`,
    );
    await h.db.execute(
      `update webhook_deliveries set next_attempt_at = '${later.toISOString()}' where endpoint_id = '${webhookId}'`,
    );
    expect((await sdk.webhooks.get(w.tenantId, webhookId)).disabledReason).toBe('FAILING');
    const resumed = await sdk.webhooks.update(w.tenantId, webhookId, { enabled: true });
    expect(resumed).toMatchObject({ enabled: true, disabledReason: null });
    expect((await endpointRow(h.db, webhookId))?.failingSince).toBeNull();
    const queued = await deliveryRows(h.db, webhookId);
    expect(queued.length).toBeGreaterThan(0);
    for (const delivery of queued) expect(delivery.nextAttemptAt.getTime()).toBeLessThan(later.getTime());
  });

  it('a PATCH to the same values changes nothing: same updatedAt, no event', async () => {
    const w = await webhookWorld(h);
    const { secret: _secret, ...created } = await registerAs(h, w.owner, w.tenantId);
    const same = await sdkOf(h, w.owner).webhooks.update(w.tenantId, created.webhookId, {
      url: created.url,
      events: ['*'],
      enabled: true,
    });
    expect(same).toEqual(created);
    const events = await sdkOf(h, w.owner).auditEvents.listForTenant(w.tenantId, {
      targetId: created.webhookId,
    });
    expect(events.items.map((e) => e.action)).toEqual(['webhook.created']);
  });

  it('refuses an empty body and an unknown endpoint', async () => {
    const w = await webhookWorld(h);
    const { webhookId } = await registerAs(h, w.owner, w.tenantId);
    const sdk = sdkOf(h, w.owner);
    expect(await refusal(sdk.webhooks.update(w.tenantId, webhookId, {}))).toEqual(
      refused(400, 'VALIDATION_FAILED'),
    );
    expect(await refusal(sdk.webhooks.update(w.tenantId, missingId(), { enabled: false }))).toEqual(
      refused(404, 'WEBHOOK_NOT_FOUND'),
    );
  });
});

describe('remove', () => {
  it('deletes the endpoint and its deliveries; a second time is 404', async () => {
    const w = await webhookWorld(h);
    const { webhookId } = await registerAs(h, w.owner, w.tenantId);
    expect((await deliveryRows(h.db, webhookId)).length).toBe(1);
    await sdkOf(h, w.owner).webhooks.remove(w.tenantId, webhookId);
    expect(await endpointRow(h.db, webhookId)).toBeUndefined();
    expect(await deliveryRows(h.db, webhookId)).toEqual([]);
    expect(await refusal(sdkOf(h, w.owner).webhooks.remove(w.tenantId, webhookId))).toEqual(
      refused(404, 'WEBHOOK_NOT_FOUND'),
    );
  });
});

describe('rotateSecret', () => {
  it('answers a new whsec_ secret; the old one signs beside it for 24 hours', async () => {
    const w = await webhookWorld(h);
    const created = await registerAs(h, w.owner, w.tenantId);
    const rotated = WebhookWithSecretSchema.strict().parse(
      await sdkOf(h, w.owner).webhooks.rotateSecret(w.tenantId, created.webhookId),
    );
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(created.secret);
    const row = await endpointRow(h.db, created.webhookId);
    expect(row).toMatchObject({ secret: rotated.secret, previousSecret: created.secret });
    const grace = (row?.previousSecretUntil?.getTime() ?? 0) - Date.now();
    expect(grace).toBeGreaterThan(23.9 * 3_600_000);
    expect(grace).toBeLessThanOrEqual(24 * 3_600_000);
  });
});

describe('platform endpoints', () => {
  it('are a super administrator’s, with tenantId null, and never found through a tenant (nor the reverse)', async () => {
    const w = await webhookWorld(h);
    const admin = sdkOf(h, superAdmin);
    const platform = await admin.platformWebhooks.create(hookBody({ description: 'SIEM' }));
    expect(platform).toMatchObject({ tenantId: null, description: 'SIEM' });
    expect(platform.secret).toMatch(SECRET);
    const tenant = await registerAs(h, w.owner, w.tenantId);
    expect(await admin.platformWebhooks.get(platform.webhookId)).toMatchObject({ tenantId: null });
    const notFound = refused(404, 'WEBHOOK_NOT_FOUND');
    expect(await refusal(admin.webhooks.get(w.tenantId, platform.webhookId))).toEqual(notFound);
    expect(await refusal(admin.webhooks.remove(w.tenantId, platform.webhookId))).toEqual(notFound);
    expect(await refusal(admin.platformWebhooks.get(tenant.webhookId))).toEqual(notFound);
    expect(await refusal(admin.platformWebhooks.rotateSecret(tenant.webhookId))).toEqual(notFound);
    expect((await admin.platformWebhooks.list()).items.map((e) => e.webhookId)).toContain(platform.webhookId);
    expect((await admin.platformWebhooks.list()).items.map((e) => e.webhookId)).not.toContain(
      tenant.webhookId,
    );
    expect((await admin.webhooks.list(w.tenantId)).items.map((e) => e.webhookId)).toEqual([tenant.webhookId]);
  });

  it('change, rotate and remove as a tenant’s do', async () => {
    const admin = sdkOf(h, superAdmin);
    const { webhookId, secret } = await admin.platformWebhooks.create(hookBody());
    expect(await admin.platformWebhooks.update(webhookId, { enabled: false })).toMatchObject({
      enabled: false,
    });
    expect((await admin.platformWebhooks.rotateSecret(webhookId)).secret).not.toBe(secret);
    await admin.platformWebhooks.remove(webhookId);
    expect(await refusal(admin.platformWebhooks.get(webhookId))).toEqual(refused(404, 'WEBHOOK_NOT_FOUND'));
  });

  it('are refused to anyone else with 403 SUPER_ADMIN_REQUIRED', async () => {
    const w = await webhookWorld(h);
    expect(await refusal(sdkOf(h, w.owner).platformWebhooks.list())).toEqual(
      refused(403, 'SUPER_ADMIN_REQUIRED'),
    );
    expect(await refusal(sdkOf(h, w.owner).platformWebhooks.create(hookBody()))).toEqual(
      refused(403, 'SUPER_ADMIN_REQUIRED'),
    );
  });
});
