import type { CreateWebhookBody, UpdateWebhookBody } from '@tms/contract';
import type { Database } from '../../db/database.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { DeliveryView } from './webhook-deliveries.repository.js';
import {
  assertTargetAllowed,
  changeEndpoint,
  createEndpoint,
  type EndpointChange,
  removeEndpoint,
  retryEndpointDelivery,
  rotateEndpointSecret,
  type WebhookTargets,
} from './webhook-endpoints.service.js';
import { lockPlatformEndpoints } from './webhooks.repository.js';

/*
 * The platform's endpoints (/admin/webhooks): the super-administrator flag was read with the
 * caller (http/authorise.ts); each change owns its transaction, as the platform's tenant writes
 * do. The URL is checked before it begins: no connection is held while a name resolves.
 */

const inTransaction = <T>(db: Database, audit: AuditContext, run: (change: EndpointChange) => Promise<T>) =>
  db.transaction((tx) => run({ tx, owner: null, audit }));

export async function createPlatformEndpoint(
  db: Database,
  audit: AuditContext,
  targets: WebhookTargets,
  body: CreateWebhookBody,
): Promise<WebhookEndpointRow> {
  await assertTargetAllowed(body.url, targets);
  return inTransaction(db, audit, async (change) => {
    // No tenant row to lock: two concurrent creations would both count 19 and make 21.
    await lockPlatformEndpoints(change.tx);
    return createEndpoint(change, body);
  });
}

export async function changePlatformEndpoint(
  db: Database,
  audit: AuditContext,
  targets: WebhookTargets,
  webhookId: string,
  body: UpdateWebhookBody,
): Promise<WebhookEndpointRow> {
  if (body.url !== undefined) await assertTargetAllowed(body.url, targets);
  return inTransaction(db, audit, (change) => changeEndpoint(change, webhookId, body));
}

export const removePlatformEndpoint = (db: Database, audit: AuditContext, webhookId: string) =>
  inTransaction(db, audit, (change) => removeEndpoint(change, webhookId));

export const rotatePlatformEndpointSecret = (
  db: Database,
  audit: AuditContext,
  webhookId: string,
): Promise<WebhookEndpointRow> =>
  inTransaction(db, audit, (change) => rotateEndpointSecret(change, webhookId));

export const retryPlatformDelivery = (
  db: Database,
  audit: AuditContext,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryView> =>
  inTransaction(db, audit, (change) => retryEndpointDelivery(change, webhookId, deliveryId));
