import { createClient } from '@tms/client';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
} from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import type { AnyResponse } from '../support/memberships.js';

/*
 * The webhook routes' and the user erasure's cases of query-count.test.ts (their fixture and
 * their costs), kept apart so that file stays readable. Reads are one statement with the caller,
 * as every read. A tenant's change is the tenant's lock, the caller read after it, then the
 * change's own statements and its audit event; a platform change the caller, then its own
 * transaction.
 */

export type WebhookFixture = {
  tenantId: string;
  owner: Actor;
  admin: Actor;
  superAdmin: Actor;
  /** The tenant's endpoints, and the first delivery of the first. */
  hooks: string[];
  deliveryId: string;
  platformHooks: string[];
  platformDeliveryId: string;
  /** A user with no membership, to erase. */
  erasable: Actor;
};

const HOOK = { url: 'https://93.184.215.14/counted', events: ['*' as const] };

export async function webhookFixture(h: TestServer): Promise<WebhookFixture> {
  const t = await createTenantFixture(h);
  const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const superAdmin = await createSuperAdmin(h);
  const owner = createClient({ baseUrl: h.baseUrl, token: t.owner.token, retries: false });
  const platform = createClient({ baseUrl: h.baseUrl, token: superAdmin.token, retries: false });
  const hooks: string[] = [];
  const platformHooks: string[] = [];
  for (let i = 0; i < 3; i++) {
    hooks.push((await owner.webhooks.create(t.tenantId, HOOK)).webhookId);
    platformHooks.push((await platform.platformWebhooks.create(HOOK)).webhookId);
  }
  const [delivery] = (await owner.webhooks.listDeliveries(t.tenantId, hooks[0] ?? '')).items;
  const [platformDelivery] = (await platform.platformWebhooks.listDeliveries(platformHooks[0] ?? '')).items;
  return {
    tenantId: t.tenantId,
    owner: t.owner,
    admin,
    superAdmin,
    hooks,
    deliveryId: delivery?.deliveryId ?? '',
    platformHooks,
    platformDeliveryId: platformDelivery?.deliveryId ?? '',
    erasable: await createActor(h),
  };
}

type Cost = { statements: number; transactions: number };
type WebhookCase = {
  route: string;
  name: string;
  status: number;
  cost: Cost;
  call: (w: WebhookFixture) => Promise<AnyResponse>;
};

const reads = (n: number): Cost => ({ statements: n, transactions: 0 });
const writes = (n: number): Cost => ({ statements: n, transactions: 1 });
/** A tenant write that resolves its address first (`prepare`): its caller read and decided before that, then `n` in its transaction. */
const decidedFirst = (n: number): Cost => ({ statements: n + 1, transactions: 1 });
const hook = (w: WebhookFixture, i: number) => ({ tenantId: w.tenantId, webhookId: w.hooks[i] ?? '' });
const platformHook = (w: WebhookFixture, i: number) => ({ webhookId: w.platformHooks[i] ?? '' });

export const WEBHOOK_CASES: WebhookCase[] = [
  {
    route: 'webhooks.create',
    name: 'caller decided before the body; then lock, caller with its role, insert within the limit (counting), audit event',
    status: 201,
    cost: decidedFirst(4),
    call: (w) => w.owner.api.webhooks.create({ params: { tenantId: w.tenantId }, body: HOOK }),
  },
  {
    route: 'webhooks.create',
    name: 'by an ADMIN: caller with its role, refused before the body is read and before any lock',
    status: 403,
    cost: reads(1),
    call: (w) => w.admin.api.webhooks.create({ params: { tenantId: w.tenantId }, body: HOOK }),
  },
  {
    route: 'webhooks.list',
    name: 'caller with the page',
    status: 200,
    cost: reads(1),
    call: (w) => w.admin.api.webhooks.list({ params: { tenantId: w.tenantId }, query: {} }),
  },
  {
    route: 'webhooks.get',
    name: 'caller with the endpoint',
    status: 200,
    cost: reads(1),
    call: (w) => w.admin.api.webhooks.get({ params: hook(w, 0) }),
  },
  {
    route: 'webhooks.listDeliveries',
    name: 'caller with the endpoint and the page of its deliveries',
    status: 200,
    cost: reads(1),
    call: (w) => w.admin.api.webhooks.listDeliveries({ params: hook(w, 0), query: { status: 'PENDING' } }),
  },
  {
    route: 'webhooks.update',
    name: 'caller decided before the body; then lock, caller, endpoint locked (before), update, audit event',
    status: 200,
    cost: decidedFirst(5),
    call: (w) => w.owner.api.webhooks.update({ params: hook(w, 1), body: { enabled: false } }),
  },
  {
    route: 'webhooks.update',
    name: 'caller decided before the body; then enabled again: lock, caller, endpoint (before), update, queue due now, audit event',
    status: 200,
    cost: decidedFirst(6),
    call: (w) => w.owner.api.webhooks.update({ params: hook(w, 1), body: { enabled: true } }),
  },
  {
    route: 'webhooks.update',
    name: 'caller decided before the body; then the same values: lock, caller, endpoint, nothing to write',
    status: 200,
    cost: decidedFirst(3),
    call: (w) => w.owner.api.webhooks.update({ params: hook(w, 1), body: { enabled: true } }),
  },
  {
    route: 'webhooks.rotateSecret',
    name: 'lock, caller, endpoint locked (before), new secret, audit event',
    status: 200,
    cost: writes(5),
    call: (w) => w.owner.api.webhooks.rotateSecret({ params: hook(w, 1), body: {} }),
  },
  {
    route: 'webhooks.retryDelivery',
    name: 'lock, caller, retry reading the endpoint and the event (no audit event)',
    status: 200,
    cost: writes(3),
    call: (w) =>
      w.owner.api.webhooks.retryDelivery({ params: { ...hook(w, 0), deliveryId: w.deliveryId }, body: {} }),
  },
  {
    route: 'webhooks.remove',
    name: 'lock, caller, delete reading the endpoint as it was, audit event',
    status: 204,
    cost: writes(4),
    call: (w) => w.owner.api.webhooks.remove({ params: hook(w, 2) }),
  },
  {
    route: 'platformWebhooks.create',
    name: 'user; then the platform endpoints’ lock, insert within the limit, audit event',
    status: 201,
    cost: writes(4),
    call: (w) => w.superAdmin.api.platformWebhooks.create({ body: HOOK }),
  },
  {
    route: 'platformWebhooks.list',
    name: 'caller with the page',
    status: 200,
    cost: reads(1),
    call: (w) => w.superAdmin.api.platformWebhooks.list({ query: {} }),
  },
  {
    route: 'platformWebhooks.get',
    name: 'caller with the endpoint',
    status: 200,
    cost: reads(1),
    call: (w) => w.superAdmin.api.platformWebhooks.get({ params: platformHook(w, 0) }),
  },
  {
    route: 'platformWebhooks.listDeliveries',
    name: 'caller with the endpoint and the page of its deliveries',
    status: 200,
    cost: reads(1),
    call: (w) => w.superAdmin.api.platformWebhooks.listDeliveries({ params: platformHook(w, 0), query: {} }),
  },
  {
    route: 'platformWebhooks.update',
    name: 'user; then endpoint locked (before), update, audit event',
    status: 200,
    cost: writes(4),
    call: (w) =>
      w.superAdmin.api.platformWebhooks.update({
        params: platformHook(w, 1),
        body: { description: 'counted' },
      }),
  },
  {
    route: 'platformWebhooks.rotateSecret',
    name: 'user; then endpoint locked (before), new secret, audit event',
    status: 200,
    cost: writes(4),
    call: (w) => w.superAdmin.api.platformWebhooks.rotateSecret({ params: platformHook(w, 1), body: {} }),
  },
  {
    route: 'platformWebhooks.retryDelivery',
    name: 'user; then retry reading the endpoint and the event',
    status: 200,
    cost: writes(2),
    call: (w) =>
      w.superAdmin.api.platformWebhooks.retryDelivery({
        params: { ...platformHook(w, 0), deliveryId: w.platformDeliveryId },
        body: {},
      }),
  },
  {
    route: 'platformWebhooks.remove',
    name: 'user; then delete reading the endpoint as it was, audit event',
    status: 204,
    cost: writes(3),
    call: (w) => w.superAdmin.api.platformWebhooks.remove({ params: platformHook(w, 2) }),
  },
  {
    route: 'users.erase',
    name: 'a user without memberships: user; then its tenants locked, what names it found and rewritten, no join request to cancel nor block to lift, the domains that reached it forgotten, its guardian links and pairing codes deleted, its guardian invitations found (none to pseudonymise) and none to revoke, event',
    status: 204,
    cost: writes(27),
    call: (w) => w.superAdmin.api.users.erase({ params: { userId: w.erasable.userId } }),
  },
];
