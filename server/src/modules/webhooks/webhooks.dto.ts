import type { Webhook, WebhookDelivery } from '@tms/contract';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.js';

/** An endpoint as the API shows it: never its secret (that is answered once, by create and rotate). */
export const toWebhookDto = (row: WebhookEndpointRow): Webhook => ({
  webhookId: row.id,
  tenantId: row.tenantId,
  url: row.url,
  events: row.events,
  description: row.description,
  enabled: row.enabled,
  disabledReason: row.disabledReason === 'FAILING' ? 'FAILING' : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A delivery, with the action of its event (`type`, as the receiver gets it). */
export const toWebhookDeliveryDto = (row: WebhookDeliveryRow & { type: string }): WebhookDelivery => ({
  deliveryId: row.id,
  webhookId: row.endpointId,
  auditEventId: row.auditEventId,
  type: row.type,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.lastStatusCode,
  lastError: row.lastError,
  lastResponse: row.lastResponse,
  lastAttemptAt: iso(row.lastAttemptAt),
  nextAttemptAt: row.status === 'PENDING' ? row.nextAttemptAt.toISOString() : null,
  deliveredAt: iso(row.deliveredAt),
  createdAt: row.createdAt.toISOString(),
});
