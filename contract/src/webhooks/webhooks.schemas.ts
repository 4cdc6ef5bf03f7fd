import { z } from 'zod';
import { AUDIT_ACTION_NAMES } from '../audit/audit-actions.js';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { WEBHOOK_DELIVERY_STATUSES } from '../lifecycle.js';

/** Endpoints a tenant (or the platform) may have: enough for every consumer, not a fan-out amplifier. */
export const WEBHOOKS_PER_OWNER_MAX = 20;
/** The most of a receiver's last answer that is kept, in bytes. */
export const WEBHOOK_RESPONSE_KEPT_BYTES = 1024;

export const WebhookUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .url()
  .refine((url) => /^https?:\/\//i.test(url), 'must be an http(s) URL')
  .refine((url) => !/^https?:\/\/[^/]*@/i.test(url), 'must not carry credentials (user:password@)')
  .describe(
    'Where events are POSTed. HTTPS in production; never a loopback, private, link-local or metadata ' +
      'address (checked on the resolved address, at registration and at every attempt)',
  );

export const WebhookEventsSchema = z
  .array(z.union([z.enum(AUDIT_ACTION_NAMES), z.literal('*')]))
  .min(1)
  .max(AUDIT_ACTION_NAMES.length + 1)
  .refine((events) => new Set(events).size === events.length, 'must not repeat an event')
  .describe('The actions to receive (see docs/audit.md), or `["*"]` for every one');

const DescriptionSchema = z.string().trim().max(500).describe('What the endpoint is for, for people');

export const CreateWebhookBodySchema = z
  .object({ url: WebhookUrlSchema, events: WebhookEventsSchema, description: DescriptionSchema.optional() })
  .strict();
export type CreateWebhookBody = z.infer<typeof CreateWebhookBodySchema>;

export const UpdateWebhookBodySchema = z
  .object({
    url: WebhookUrlSchema.optional(),
    events: WebhookEventsSchema.optional(),
    description: DescriptionSchema.nullable().optional(),
    enabled: z
      .boolean()
      .optional()
      .describe(
        'false pauses deliveries (events meanwhile are not queued); true resumes what is queued, now',
      ),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'must change at least one field');
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBodySchema>;

export const WebhookSchema = z.object({
  webhookId: UuidSchema,
  tenantId: UuidSchema.nullable().describe(
    "The tenant whose events it receives; null: every tenant's, and the platform's",
  ),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason: z
    .enum(['FAILING'])
    .nullable()
    .describe('FAILING: the service disabled it after a day without a successful delivery'),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Webhook = z.infer<typeof WebhookSchema>;

/** Answered once, at creation and rotation: the secret is never shown again. */
export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]+$/)
    .describe('`whsec_…`: verify signatures with it (Standard Webhooks); shown only in this answer'),
});
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;

export const WebhookDeliveryStatusSchema = z
  .enum(WEBHOOK_DELIVERY_STATUSES)
  .describe(
    'PENDING until the receiver answers 2xx (DELIVERED), or retries run out after about a day (FAILED)',
  );

export const WebhookDeliverySchema = z.object({
  deliveryId: UuidSchema.describe('Also the `webhook-id` header: the same on every attempt'),
  webhookId: UuidSchema,
  auditEventId: UuidSchema,
  type: z.string().describe('The audit action'),
  status: WebhookDeliveryStatusSchema,
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable().describe("The receiver's last HTTP status; null if none"),
  lastError: z
    .string()
    .nullable()
    .describe('Why the last attempt failed without an HTTP answer (timeout, refused address, …)'),
  lastResponse: z
    .string()
    .nullable()
    .describe(`At most ${WEBHOOK_RESPONSE_KEPT_BYTES} bytes of the last answer`),
  lastAttemptAt: TimestampSchema.nullable(),
  nextAttemptAt: TimestampSchema.nullable().describe('When it is tried next; null once DELIVERED or FAILED'),
  deliveredAt: TimestampSchema.nullable(),
  createdAt: TimestampSchema,
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const ListWebhooksQuerySchema = z.object({ ...pageQuery });
export type ListWebhooksQuery = z.infer<typeof ListWebhooksQuerySchema>;

export const ListWebhookDeliveriesQuerySchema = z.object({
  status: WebhookDeliveryStatusSchema.optional(),
  ...pageQuery,
});
export type ListWebhookDeliveriesQuery = z.infer<typeof ListWebhookDeliveriesQuerySchema>;

const WebhookIdSchema = UuidSchema.describe(
  "The endpoint's `webhookId`; one of another tenant is not found here",
);
const DeliveryIdSchema = UuidSchema.describe("The delivery's `deliveryId`, as the deliveries list gave it");
const TenantIdSchema = UuidSchema.describe("The tenant's `tenantId` (a UUID)");

export const TenantWebhookParams = z.object({ tenantId: TenantIdSchema, webhookId: WebhookIdSchema });
export const TenantDeliveryParams = TenantWebhookParams.extend({ deliveryId: DeliveryIdSchema });
export const PlatformWebhookParams = z.object({ webhookId: WebhookIdSchema });
export const PlatformDeliveryParams = PlatformWebhookParams.extend({ deliveryId: DeliveryIdSchema });

/**
 * What a receiver gets (Standard Webhooks): `type` is the action, `data` the audit event. The
 * headers `webhook-id` (the delivery id), `webhook-timestamp` and `webhook-signature` sign it.
 */
export const WebhookPayloadSchema = z.object({
  type: z.string(),
  timestamp: TimestampSchema,
  data: z.record(z.string(), z.unknown()).describe('The audit event, as GET …/audit-events shows it'),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;
