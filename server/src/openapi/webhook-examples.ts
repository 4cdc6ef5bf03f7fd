import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookDelivery,
  WebhookWithSecret,
} from '@tms/contract';
import { encodeCursor, encodeSortedCursor } from '../pagination/cursor.js';
import { type Examples, GREEN_VALLEY, ok } from './examples.js';

/*
 * The examples of the webhook routes (issue 14), in the story of examples.ts: Ada Head sends
 * Green Valley's membership changes to the school's CRM, and the platform's operators send every
 * event to their security monitoring.
 */

// UUIDv7s whose timestamps match the createdAt next to them; deliveries' ids are v4, as the outbox makes them.
const CRM_HOOK = '0195cc87-b280-74d8-8aab-e7c500fc4adf';
const SIEM_HOOK = '0195dba8-60c0-7bb0-bee6-f8ba8e81a131';
const FIRST_SECRET = 'whsec_ZoHatWSa77P+G00pgHLO4kNjP2K+tqGg';
const ROTATED_SECRET = 'whsec_do1z0B9FgVd58mOsX0G4cM9wc8W4nWyq';

const crm: Webhook = {
  webhookId: CRM_HOOK,
  tenantId: GREEN_VALLEY,
  url: 'https://crm.greenvalley.example/hooks/members',
  events: ['membership.created', 'membership.removed'],
  description: 'CRM sync',
  enabled: true,
  disabledReason: null,
  createdAt: '2025-03-25T09:00:00.000Z',
  updatedAt: '2025-03-25T09:00:00.000Z',
};
const crmWithRoles: Webhook = {
  ...crm,
  events: ['membership.created', 'membership.role_changed', 'membership.removed'],
  updatedAt: '2025-03-26T08:12:44.503Z',
};
const crmPaused: Webhook = { ...crmWithRoles, enabled: false, updatedAt: '2025-03-28T17:45:00.000Z' };
const crmFailing: Webhook = {
  ...crmWithRoles,
  enabled: false,
  disabledReason: 'FAILING',
  updatedAt: '2025-03-30T06:02:19.774Z',
};
const crmRotated: Webhook = { ...crmWithRoles, updatedAt: '2025-04-01T08:00:00.000Z' };
const siem: Webhook = {
  webhookId: SIEM_HOOK,
  tenantId: null,
  url: 'https://siem.platform.example/ingest/tms',
  events: ['*'],
  description: 'Security monitoring: every event of every tenant',
  enabled: true,
  disabledReason: null,
  createdAt: '2025-03-28T07:30:00.000Z',
  updatedAt: '2025-03-28T07:30:00.000Z',
};

const delivered: WebhookDelivery = {
  deliveryId: 'b3013fd0-a1f8-49cb-aa67-a5842a4819f2',
  webhookId: CRM_HOOK,
  auditEventId: '0195d353-3f2e-70cf-b15d-33c59e17d43b',
  type: 'membership.created',
  status: 'DELIVERED',
  attempts: 1,
  lastStatusCode: 200,
  lastError: null,
  lastResponse: '{"ok":true}',
  lastAttemptAt: '2025-03-26T16:40:03.502Z',
  nextAttemptAt: null,
  deliveredAt: '2025-03-26T16:40:03.502Z',
  createdAt: '2025-03-26T16:40:03.118Z',
};
const retrying: WebhookDelivery = {
  deliveryId: '43908880-2210-4af0-9239-a531c8b7492b',
  webhookId: CRM_HOOK,
  auditEventId: '0195d7eb-d70b-766c-8a29-333cee2eb4a3',
  type: 'membership.role_changed',
  status: 'PENDING',
  attempts: 2,
  lastStatusCode: 503,
  lastError: null,
  lastResponse: 'Service Unavailable',
  lastAttemptAt: '2025-03-27T14:05:48.090Z',
  nextAttemptAt: '2025-03-27T14:10:48.090Z',
  deliveredAt: null,
  createdAt: '2025-03-27T14:05:12.331Z',
};
const failed: WebhookDelivery = {
  ...retrying,
  status: 'FAILED',
  attempts: 9,
  lastStatusCode: null,
  lastError: 'connect ETIMEDOUT (after 5 s)',
  lastResponse: null,
  lastAttemptAt: '2025-03-28T14:06:02.415Z',
  nextAttemptAt: null,
};
const retried: WebhookDelivery = { ...failed, status: 'PENDING', nextAttemptAt: '2025-04-01T08:30:00.000Z' };
const platformDelivered: WebhookDelivery = {
  ...delivered,
  deliveryId: '9515aa4e-9c77-4c7a-83c8-2f52082873d8',
  webhookId: SIEM_HOOK,
};

const withSecret = (webhook: Webhook, secret: string): WebhookWithSecret => ({ ...webhook, secret });
const one = <T>(summary: string, value: T) => ({ one: { summary, value: ok(value) } });
const page = <T>(data: T[], nextCursor: string | null) => ({ ...ok(data), meta: { nextCursor } });

const createBodies = {
  crm: {
    summary: 'Membership changes, to a CRM',
    value: {
      url: crm.url,
      events: ['membership.created', 'membership.removed'],
      description: 'CRM sync',
    },
  },
  everything: { summary: 'Every event', value: { url: siem.url, events: ['*'] } },
} satisfies Examples<CreateWebhookBody>;
const updateBodies = {
  events: {
    summary: 'Receive role changes too',
    value: { events: ['membership.created', 'membership.role_changed', 'membership.removed'] },
  },
  pause: { summary: 'Pause (events meanwhile are not queued)', value: { enabled: false } },
  resume: { summary: 'Resume after a failure: what is queued goes at once', value: { enabled: true } },
  move: {
    summary: 'Move it, and clear its description',
    value: { url: 'https://crm2.greenvalley.example/hooks/members', description: null },
  },
} satisfies Examples<UpdateWebhookBody>;

/** Request body examples of the webhook routes, by operationId. */
export const WEBHOOK_REQUEST_EXAMPLES = {
  createWebhook: createBodies,
  updateWebhook: updateBodies,
  createPlatformWebhook: { everything: createBodies.everything },
  updatePlatformWebhook: { pause: updateBodies.pause, resume: updateBodies.resume },
};

const deliveryPages = {
  newest: {
    summary: 'Newest first, with more after it (`limit=2`)',
    value: page(
      [retrying, delivered],
      encodeSortedCursor('position', { key: '4182', id: delivered.deliveryId }),
    ),
  },
  failed: { summary: 'The ones that gave up (`status=FAILED`)', value: page([failed], null) },
};

/** Success response examples of the webhook routes (and the user erasure's), by operationId and status. */
export const WEBHOOK_RESPONSE_EXAMPLES = {
  createWebhook: {
    201: one('Registered: keep the secret, it is not shown again', withSecret(crm, FIRST_SECRET)),
  },
  listWebhooks: {
    200: {
      all: { summary: "The tenant's endpoints, oldest first", value: page([crmWithRoles], null) },
      more: {
        summary: 'A page with more after it (`limit=1`)',
        value: page([crm], encodeCursor(crm.webhookId)),
      },
    },
  },
  getWebhook: {
    200: {
      one: { summary: 'An endpoint (never its secret)', value: ok(crmWithRoles) },
      failing: { summary: 'Disabled by the service after a day of failures', value: ok(crmFailing) },
    },
  },
  updateWebhook: {
    200: {
      events: { summary: 'Now receives role changes too', value: ok(crmWithRoles) },
      paused: { summary: 'Paused', value: ok(crmPaused) },
    },
  },
  rotateWebhookSecret: {
    200: one(
      'A new secret; the previous one also signs for 24 hours',
      withSecret(crmRotated, ROTATED_SECRET),
    ),
  },
  listWebhookDeliveries: { 200: deliveryPages },
  retryWebhookDelivery: { 200: one('Pending again, due now', retried) },
  createPlatformWebhook: { 201: one('Registered for every tenant', withSecret(siem, FIRST_SECRET)) },
  listPlatformWebhooks: { 200: { all: { summary: 'The platform endpoints', value: page([siem], null) } } },
  getPlatformWebhook: { 200: one('A platform endpoint (tenantId null)', siem) },
  updatePlatformWebhook: {
    200: one('Paused', { ...siem, enabled: false, updatedAt: '2025-04-02T12:00:00.000Z' }),
  },
  rotatePlatformWebhookSecret: {
    200: one('A new secret', withSecret({ ...siem, updatedAt: '2025-04-02T12:05:00.000Z' }, ROTATED_SECRET)),
  },
  listPlatformWebhookDeliveries: {
    200: { newest: { summary: 'Newest first', value: page([platformDelivered], null) } },
  },
  retryPlatformWebhookDelivery: {
    200: one('Sent again (it had been delivered): pending, due now', {
      ...platformDelivered,
      status: 'PENDING',
      nextAttemptAt: '2025-04-02T12:10:00.000Z',
    } satisfies WebhookDelivery),
  },
};
