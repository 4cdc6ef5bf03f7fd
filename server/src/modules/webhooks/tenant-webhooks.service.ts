import type { CreateWebhookBody, UpdateWebhookBody } from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import type { Transaction } from '../../db/database.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import { ownerOnlyProblem } from '../../rules/membership-rules.js';
import { refuse } from '../../rules/problems.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { TenantWrite } from '../shared/tenant-write.js';
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
 * A tenant's endpoints are changed in the transaction that locks the tenant's row
 * (pipeline/tenant-transaction.ts), so the caller's role, the endpoint count the limit is checked
 * on, and the change cannot move apart before commit. A new URL's name is resolved before that
 * transaction begins (assertTenantTarget), on the access decided before the body was read: no
 * tenant is locked while the network answers, and only an OWNER's URL is resolved at all.
 */

/**
 * An endpoint sends the tenant's whole history (every member's name and email, as the audit trail
 * has them) to a URL of the caller's choosing, signed with a secret only its creator sees: that is
 * an OWNER's decision, as handing the tenant over is. ADMINs may read endpoints and deliveries;
 * the route's rule lets them in, this refuses them the changes (as assertOwnerLevel does for
 * ownership transfers).
 */
function ownerChange(tx: Transaction, access: TenantAccess, audit: AuditContext): EndpointChange {
  assertOwner(access);
  return { tx, owner: access.tenantId, audit };
}

function assertOwner(access: TenantAccess): void {
  refuse(ownerOnlyProblem(access.level, 'webhooks'));
}

/** Before the transaction: only an OWNER's URL is looked at, and it must point where endpoints may. */
export async function assertTenantTarget(
  access: TenantAccess | undefined,
  targets: WebhookTargets,
  url: string | undefined,
): Promise<void> {
  if (access) assertOwner(access);
  if (url !== undefined) await assertTargetAllowed(url, targets);
}

export async function createTenantEndpoint(
  { tx, access, audit }: TenantWrite,
  body: CreateWebhookBody,
): Promise<WebhookEndpointRow> {
  return createEndpoint(ownerChange(tx, access, audit), body);
}

export async function changeTenantEndpoint(
  { tx, access, audit }: TenantWrite,
  webhookId: string,
  body: UpdateWebhookBody,
): Promise<WebhookEndpointRow> {
  return changeEndpoint(ownerChange(tx, access, audit), webhookId, body);
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
