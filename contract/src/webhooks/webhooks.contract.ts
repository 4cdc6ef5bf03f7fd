import { initContract } from '@ts-rest/core';
import { EmptyBodySchema } from '../common/empty-body.js';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateWebhookBodySchema,
  ListWebhookDeliveriesQuerySchema,
  ListWebhooksQuerySchema,
  PlatformDeliveryParams,
  PlatformWebhookParams,
  TenantDeliveryParams,
  TenantWebhookParams,
  UpdateWebhookBodySchema,
  WEBHOOKS_PER_OWNER_MAX,
  WebhookDeliverySchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from './webhooks.schemas.js';

const c = initContract();

const OWNER_ONLY = ' (OWNER only: ADMINs may read endpoints and deliveries, not change them)';

const tenantRoutes = c.router({
  create: {
    method: 'POST',
    path: '/tenants/:tenantId/webhooks',
    pathParams: TenantIdParams,
    headers: TenantHeaders.merge(IdempotencyHeaders),
    body: CreateWebhookBodySchema,
    responses: { 201: successEnvelope(WebhookWithSecretSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['INSUFFICIENT_ROLE', 'WEBHOOK_TARGET_REFUSED', 'WEBHOOK_LIMIT_REACHED'],
    } satisfies RouteMetadata,
    summary: `Register an endpoint for the tenant's events${OWNER_ONLY}`,
    description:
      'Each committed change of the tenant that `events` names is POSTed to `url`, signed as the ' +
      'Standard Webhooks specification says, at least once and in commit order. The `secret` is ' +
      `shown in this answer only. At most ${WEBHOOKS_PER_OWNER_MAX} endpoints per tenant.`,
  },
  list: {
    method: 'GET',
    path: '/tenants/:tenantId/webhooks',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListWebhooksQuerySchema,
    responses: { 200: listEnvelope(WebhookSchema) },
    metadata: { access: 'tenantAdmin' } satisfies RouteMetadata,
    summary: "The tenant's endpoints, oldest first",
  },
  get: {
    method: 'GET',
    path: '/tenants/:tenantId/webhooks/:webhookId',
    pathParams: TenantWebhookParams,
    headers: TenantHeaders,
    responses: { 200: successEnvelope(WebhookSchema) },
    metadata: { access: 'tenantAdmin', errors: ['WEBHOOK_NOT_FOUND'] } satisfies RouteMetadata,
    summary: 'Read one endpoint of the tenant',
  },
  update: {
    method: 'PATCH',
    path: '/tenants/:tenantId/webhooks/:webhookId',
    pathParams: TenantWebhookParams,
    headers: TenantHeaders,
    body: UpdateWebhookBodySchema,
    responses: { 200: successEnvelope(WebhookSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['WEBHOOK_NOT_FOUND', 'INSUFFICIENT_ROLE', 'WEBHOOK_TARGET_REFUSED'],
    } satisfies RouteMetadata,
    summary: `Change an endpoint's url, events, description, or pause and resume it${OWNER_ONLY}`,
  },
  remove: {
    method: 'DELETE',
    path: '/tenants/:tenantId/webhooks/:webhookId',
    pathParams: TenantWebhookParams,
    headers: TenantHeaders,
    body: c.noBody(),
    responses: { 204: c.noBody() },
    metadata: {
      access: 'tenantAdmin',
      errors: ['WEBHOOK_NOT_FOUND', 'INSUFFICIENT_ROLE'],
    } satisfies RouteMetadata,
    summary: `Remove an endpoint and its queued deliveries${OWNER_ONLY}`,
  },
  rotateSecret: {
    method: 'POST',
    path: '/tenants/:tenantId/webhooks/:webhookId/rotate-secret',
    pathParams: TenantWebhookParams,
    headers: TenantHeaders.merge(IdempotencyHeaders),
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(WebhookWithSecretSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['WEBHOOK_NOT_FOUND', 'INSUFFICIENT_ROLE'],
    } satisfies RouteMetadata,
    summary: `Give an endpoint a new secret${OWNER_ONLY}`,
    description:
      'For 24 hours deliveries carry two signatures, by the new secret and the previous one, so that ' +
      'a receiver can switch without losing an event.',
  },
  listDeliveries: {
    method: 'GET',
    path: '/tenants/:tenantId/webhooks/:webhookId/deliveries',
    pathParams: TenantWebhookParams,
    headers: TenantHeaders,
    query: ListWebhookDeliveriesQuerySchema,
    responses: { 200: listEnvelope(WebhookDeliverySchema) },
    metadata: { access: 'tenantAdmin', errors: ['WEBHOOK_NOT_FOUND'] } satisfies RouteMetadata,
    summary: "An endpoint's deliveries, newest first",
  },
  retryDelivery: {
    method: 'POST',
    path: '/tenants/:tenantId/webhooks/:webhookId/deliveries/:deliveryId/retry',
    pathParams: TenantDeliveryParams,
    headers: TenantHeaders.merge(IdempotencyHeaders),
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(WebhookDeliverySchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND', 'INSUFFICIENT_ROLE'],
    } satisfies RouteMetadata,
    summary: `Send a delivery again, now${OWNER_ONLY}`,
    description:
      'A FAILED or DELIVERED delivery becomes PENDING, due at once; it keeps its place in commit ' +
      'order, so it goes before the deliveries that are still queued behind it.',
  },
});

const platformRoutes = c.router(
  {
    create: {
      method: 'POST',
      path: '/admin/webhooks',
      headers: IdempotencyHeaders,
      body: CreateWebhookBodySchema,
      responses: { 201: successEnvelope(WebhookWithSecretSchema) },
      metadata: {
        errors: ['WEBHOOK_TARGET_REFUSED', 'WEBHOOK_LIMIT_REACHED'],
      } satisfies Partial<RouteMetadata>,
      summary: "Register an endpoint for every tenant's events and the platform's",
      description: `The secret is shown in this answer only. At most ${WEBHOOKS_PER_OWNER_MAX} platform endpoints.`,
    },
    list: {
      method: 'GET',
      path: '/admin/webhooks',
      query: ListWebhooksQuerySchema,
      responses: { 200: listEnvelope(WebhookSchema) },
      summary: 'The platform endpoints, oldest first',
    },
    get: {
      method: 'GET',
      path: '/admin/webhooks/:webhookId',
      pathParams: PlatformWebhookParams,
      responses: { 200: successEnvelope(WebhookSchema) },
      metadata: { errors: ['WEBHOOK_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'Read one platform endpoint',
    },
    update: {
      method: 'PATCH',
      path: '/admin/webhooks/:webhookId',
      pathParams: PlatformWebhookParams,
      body: UpdateWebhookBodySchema,
      responses: { 200: successEnvelope(WebhookSchema) },
      metadata: { errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_TARGET_REFUSED'] } satisfies Partial<RouteMetadata>,
      summary: "Change a platform endpoint's url, events, description, or pause and resume it",
    },
    remove: {
      method: 'DELETE',
      path: '/admin/webhooks/:webhookId',
      pathParams: PlatformWebhookParams,
      body: c.noBody(),
      responses: { 204: c.noBody() },
      metadata: { errors: ['WEBHOOK_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'Remove a platform endpoint and its queued deliveries',
    },
    rotateSecret: {
      method: 'POST',
      path: '/admin/webhooks/:webhookId/rotate-secret',
      pathParams: PlatformWebhookParams,
      headers: IdempotencyHeaders,
      body: EmptyBodySchema,
      responses: { 200: successEnvelope(WebhookWithSecretSchema) },
      metadata: { errors: ['WEBHOOK_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'Give a platform endpoint a new secret (the previous one also signs for 24 hours)',
    },
    listDeliveries: {
      method: 'GET',
      path: '/admin/webhooks/:webhookId/deliveries',
      pathParams: PlatformWebhookParams,
      query: ListWebhookDeliveriesQuerySchema,
      responses: { 200: listEnvelope(WebhookDeliverySchema) },
      metadata: { errors: ['WEBHOOK_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: "A platform endpoint's deliveries, newest first",
    },
    retryDelivery: {
      method: 'POST',
      path: '/admin/webhooks/:webhookId/deliveries/:deliveryId/retry',
      pathParams: PlatformDeliveryParams,
      headers: IdempotencyHeaders,
      body: EmptyBodySchema,
      responses: { 200: successEnvelope(WebhookDeliverySchema) },
      metadata: {
        errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND'],
      } satisfies Partial<RouteMetadata>,
      summary: 'Send a delivery of a platform endpoint again, now',
    },
  },
  { metadata: { access: 'superAdmin' } satisfies RouteMetadata },
);

/** Tenant endpoints: the tenant's OWNERs change them, its ADMINs read them, super administrators both. */
export const webhooksContract = withErrorResponses(tenantRoutes);
/** Platform endpoints: super administrators only. */
export const platformWebhooksContract = withErrorResponses(platformRoutes);
