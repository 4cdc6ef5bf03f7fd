import {
  type AuditAction,
  type CreateWebhookBody,
  type UpdateWebhookBody,
  WEBHOOKS_PER_OWNER_MAX,
} from '@tms/contract';
import type { Transaction } from '../../db/database.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import {
  WebhookDeliveryNotFoundError,
  WebhookLimitReachedError,
  WebhookNotFoundError,
  WebhookTargetRefusedError,
} from '../../errors/index.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { checkTarget, type Resolver, TargetRefused, TargetUnresolved } from './target-address.js';
import { type DeliveryView, makeQueueDue, retryDelivery } from './webhook-deliveries.repository.js';
import { generateWebhookSecret } from './webhook-signing.js';
import { toWebhookDto } from './webhooks.dto.js';
import {
  deleteEndpoint,
  type EndpointChanges,
  findEndpointForUpdate,
  insertEndpointWithin,
  replaceSecret,
  updateEndpoint,
  type WebhookOwner,
} from './webhooks.repository.js';

/*
 * The changes to endpoints, the same for a tenant's and the platform's: each runs in the
 * transaction it is given (tenant-webhooks.service.ts, platform-webhooks.service.ts say which),
 * with its audit event in it. The URL is checked by those callers, before anything is read.
 */

/** Where endpoints may point (config.webhooks), and how names are resolved (tests pass a stub). */
export type WebhookTargets = { allowPrivateNetworks: boolean; requireHttps: boolean; resolve?: Resolver };

/** What createApp assumes without config: private networks refused, plain http allowed. */
export const DEFAULT_WEBHOOK_TARGETS: WebhookTargets = { allowPrivateNetworks: false, requireHttps: false };

/**
 * Refuses a URL the service would never send to (WEBHOOK_TARGET_REFUSED, with the reason). A name
 * that does not resolve (yet) is accepted: DNS may be set up after the endpoint, and every
 * delivery attempt checks the address again before it connects.
 */
export async function assertTargetAllowed(url: string, targets: WebhookTargets): Promise<void> {
  const { allowPrivateNetworks, requireHttps, resolve } = targets;
  try {
    await checkTarget(url, { allowPrivateNetworks, requireHttps }, resolve);
  } catch (error) {
    if (error instanceof TargetUnresolved) return;
    if (error instanceof TargetRefused) throw new WebhookTargetRefusedError(error.message);
    throw error;
  }
}

/** Whose endpoints a change is about, who makes it, and the transaction it commits in. */
export type EndpointChange = { tx: Transaction; owner: WebhookOwner; audit: AuditContext };

export async function createEndpoint(
  change: EndpointChange,
  body: CreateWebhookBody,
): Promise<WebhookEndpointRow> {
  const created = await insertEndpointWithin(
    change.tx,
    {
      owner: change.owner,
      url: body.url,
      events: body.events,
      description: body.description ?? null,
      secret: generateWebhookSecret(),
    },
    WEBHOOKS_PER_OWNER_MAX,
  );
  if (!created) throw new WebhookLimitReachedError(WEBHOOKS_PER_OWNER_MAX);
  await recordWebhookEvent(change, 'webhook.created', null, created);
  return created;
}

/** What the body changes of the endpoint; nothing, when it says what the endpoint already is. */
function changesOf(before: WebhookEndpointRow, body: UpdateWebhookBody): EndpointChanges {
  const changes: EndpointChanges = {};
  if (body.url !== undefined && body.url !== before.url) changes.url = body.url;
  if (body.events !== undefined && body.events.join('\n') !== before.events.join('\n'))
    changes.events = body.events;
  if (body.description !== undefined && body.description !== before.description)
    changes.description = body.description;
  if (body.enabled === false && before.enabled) changes.enabled = false;
  // Enabling is a person saying the receiver is fixed: the failure streak starts over.
  if (body.enabled === true && !before.enabled)
    Object.assign(changes, { enabled: true, disabledReason: null, failingSince: null });
  return changes;
}

/**
 * Pausing keeps the queue (nothing new is queued meanwhile: recordAuditEvent queues for enabled
 * endpoints only); resuming makes what is queued due now. A PATCH to the same values changes
 * nothing and records nothing, as everywhere in the API.
 */
export async function changeEndpoint(
  change: EndpointChange,
  webhookId: string,
  body: UpdateWebhookBody,
): Promise<WebhookEndpointRow> {
  const before = await getEndpointForUpdate(change, webhookId);
  const changes = changesOf(before, body);
  if (Object.keys(changes).length === 0) return before;
  const after = await updateEndpoint(change.tx, change.owner, webhookId, changes);
  if (changes.enabled === true) await makeQueueDue(change.tx, webhookId);
  await recordWebhookEvent(change, 'webhook.updated', before, after);
  return after;
}

/** Removes the endpoint and, with it, every delivery it has queued or kept. */
export async function removeEndpoint(change: EndpointChange, webhookId: string): Promise<void> {
  const removed = await deleteEndpoint(change.tx, change.owner, webhookId);
  if (!removed) throw new WebhookNotFoundError(webhookId);
  await recordWebhookEvent(change, 'webhook.deleted', removed, null);
}

/** A new secret, answered once; the previous one also signs for 24 hours (see replaceSecret). */
export async function rotateEndpointSecret(
  change: EndpointChange,
  webhookId: string,
): Promise<WebhookEndpointRow> {
  const before = await getEndpointForUpdate(change, webhookId);
  const after = await replaceSecret(change.tx, change.owner, webhookId, generateWebhookSecret());
  await recordWebhookEvent(change, 'webhook.secret_rotated', before, after);
  return after;
}

/**
 * Sends a delivery again, whatever its status, as soon as the endpoint's queue reaches it. Its
 * attempts are kept (they are its history): a FAILED one, its schedule spent, gets one more
 * attempt, and is FAILED again if that fails too. Not an audit event: it changes no resource of
 * the tenant, only when the outbox tries again.
 */
export async function retryEndpointDelivery(
  change: EndpointChange,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  const found = await retryDelivery(change.tx, change.owner, webhookId, deliveryId);
  if (!found) throw new WebhookNotFoundError(webhookId);
  if (!found.delivery) throw new WebhookDeliveryNotFoundError(deliveryId);
  return found.delivery;
}

async function getEndpointForUpdate(change: EndpointChange, webhookId: string): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpointForUpdate(change.tx, change.owner, webhookId);
  if (!endpoint) throw new WebhookNotFoundError(webhookId);
  return endpoint;
}

/**
 * The change's event, in its transaction; before and after as the API shows the endpoint, so the
 * secret never reaches the trail (nor, through it, another endpoint's deliveries).
 */
function recordWebhookEvent(
  change: EndpointChange,
  action: AuditAction,
  before: WebhookEndpointRow | null,
  after: WebhookEndpointRow | null,
): Promise<void> {
  const target = after ?? before;
  if (!target) throw new Error('a webhook event without an endpoint');
  return recordAuditEvent(change.tx, {
    tenantId: target.tenantId,
    action,
    target: { type: 'webhook', id: target.id },
    before: before && toWebhookDto(before),
    after: after && toWebhookDto(after),
    context: change.audit,
  });
}
