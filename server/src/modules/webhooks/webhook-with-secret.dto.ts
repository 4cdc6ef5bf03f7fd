import type { WebhookWithSecret } from '@tms/contract';
import type { WebhookEndpointRow } from '../../db/schema.js';
import { toWebhookDto } from './webhooks.dto.js';

/**
 * The endpoint with the secret it signs with: the answer of create and rotate only. Nothing else
 * shows it, the audit trail included (its events carry toWebhookDto).
 */
export const toWebhookWithSecretDto = (row: WebhookEndpointRow): WebhookWithSecret => ({
  ...toWebhookDto(row),
  secret: row.secret,
});
