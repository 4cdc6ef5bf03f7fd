import { z } from 'zod';

/**
 * Kept for compatibility only: the tenant always comes from the URL. A value that differs from the
 * URL's tenant is refused (TENANT_ID_MISMATCH) rather than silently ignored.
 */
export const TenantHeaders = z.object({
  'x-tenant-id': z.string().optional().describe('Optional; must equal the :tenantId of the URL when sent'),
});

/**
 * Optimistic concurrency (RFC 9110 §13.1.1): the ETag a GET answered. A change is refused with
 * 412 when the resource moved on. Strong comparison: a weak tag (W/"…") never matches.
 */
export const IfMatchHeaders = z.object({
  'if-match': z
    .string()
    .optional()
    .describe('The `ETag` of the version you read, e.g. `"3"`, or `*`; refused with 412 when it moved on'),
});

/**
 * Every POST may carry an `Idempotency-Key` (IETF httpapi draft): sent again with the same body
 * within 24 h, the first answer is replayed instead of acting twice. Keys are per caller.
 */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'visible ASCII characters only')
    .optional()
    .describe(
      'A unique value per operation (e.g. a UUID); a retry with the same key and body replays the first answer',
    ),
});
