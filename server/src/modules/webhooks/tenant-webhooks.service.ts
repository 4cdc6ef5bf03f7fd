import { type CreateWebhookBody, ROLE_LEVEL, type UpdateWebhookBody } from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import type { Transaction } from '../../db/database.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import { InsufficientRoleError } from '../../errors/index.js';
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

/*
 * A tenant's endpoints are changed in the transaction their access was decided in: the tenant's
 * row is locked (http/authorise.ts), so the caller's role, the endpoint count the limit is checked
 * on, and the change cannot move apart before commit. A new URL's name is therefore resolved
 * under that lock: the price of deciding access before the body is read, bounded by the request's
 * deadline, and paid by OWNERs only (the role is checked first).
 */

/**
 * An endpoint sends the tenant's whole history (every member's name and email, as the audit trail
 * has them) to a URL of the caller's choosing, signed with a secret only its creator sees: that is
 * an OWNER's decision, as handing the tenant over is. ADMINs may read endpoints and deliveries;
 * the route's rule lets them in, this refuses them the changes (as assertOwnerLevel does for
 * ownership transfers).
 */
function ownerChange(tx: Transaction, access: TenantAccess, audit: AuditContext): EndpointChange {
  if (access.level < ROLE_LEVEL.OWNER)
    throw new InsufficientRoleError('Only an OWNER may change the tenant’s webhook endpoints');
  return { tx, owner: access.tenantId, audit };
}

export type TenantWrite = { tx: Transaction; access: TenantAccess; audit: AuditContext };

export async function createTenantEndpoint(
  { tx, access, audit }: TenantWrite,
  targets: WebhookTargets,
  body: CreateWebhookBody,
): Promise<WebhookEndpointRow> {
  const change = ownerChange(tx, access, audit);
  await assertTargetAllowed(body.url, targets);
  return createEndpoint(change, body);
}

export async function changeTenantEndpoint(
  { tx, access, audit }: TenantWrite,
  targets: WebhookTargets,
  webhookId: string,
  body: UpdateWebhookBody,
): Promise<WebhookEndpointRow> {
  const change = ownerChange(tx, access, audit);
  if (body.url !== undefined) await assertTargetAllowed(body.url, targets);
  return changeEndpoint(change, webhookId, body);
}

export function removeTenantEndpoint({ tx, access, audit }: TenantWrite, webhookId: string): Promise<void> {
  return removeEndpoint(ownerChange(tx, access, audit), webhookId);
}

export function rotateTenantEndpointSecret(
  { tx, access, audit }: TenantWrite,
  webhookId: string,
): Promise<WebhookEndpointRow> {
  return rotateEndpointSecret(ownerChange(tx, access, audit), webhookId);
}

/** Sending the tenant's data again is a change too: OWNERs only, as the endpoint itself. */
export function retryTenantDelivery(
  { tx, access, audit }: TenantWrite,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  return retryEndpointDelivery(ownerChange(tx, access, audit), webhookId, deliveryId);
}
