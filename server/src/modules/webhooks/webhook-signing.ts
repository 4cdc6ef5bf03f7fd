import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks (standardwebhooks.com): a secret is `whsec_` and base64 of 24 random bytes; a
 * delivery carries `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature` (`v1,` and
 * base64 of HMAC-SHA256 over `id.timestamp.body`, several separated by spaces). Signing uses the
 * specification's own library, the one receivers verify with, so the two cannot disagree.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export type SigningSecrets = { current: string; previous?: string | null };

/** The three headers of one attempt; during a rotation's grace day, signed by both secrets. */
export function signatureHeaders(
  deliveryId: string,
  at: Date,
  body: string,
  secrets: SigningSecrets,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const keys = [secrets.current, ...(secrets.previous ? [secrets.previous] : [])];
  return {
    'webhook-id': deliveryId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': keys.map((secret) => new Webhook(secret).sign(deliveryId, at, body)).join(' '),
  };
}
