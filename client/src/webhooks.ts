import type {
  Contract,
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookDelivery,
  WebhookWithSecret,
} from '@tms/contract';
import {
  allPages,
  type ListQuery,
  type Page,
  type QueryOf,
  type Send,
  unwrap,
  unwrapNoContent,
  unwrapPage,
} from './answers.js';
import type { CallOptions, CreateOptions } from './options.js';
import { routes } from './routes.js';

/**
 * A tenant's webhook endpoints. Its OWNERs change them; its ADMINs (and super administrators) may
 * read them and their deliveries. The `secret` that signs deliveries is answered by `create` and
 * `rotateSecret` only: keep it then. Every POST takes an idempotency key, so a retry is safe.
 */
export function webhooksOf(send: Send) {
  const r = routes.webhooks;
  const webhooks = {
    create: async (
      tenantId: string,
      body: CreateWebhookBody,
      options: CreateOptions = {},
    ): Promise<WebhookWithSecret> =>
      unwrap(await send({ route: r.create, params: { tenantId }, body, options })),
    /** Oldest first. */
    list: async (
      tenantId: string,
      query: QueryOf<Contract['webhooks']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Webhook>> =>
      unwrapPage(await send({ route: r.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['webhooks']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Webhook> =>
      allPages((cursor) => webhooks.list(tenantId, { ...query, cursor }, options)),
    get: async (tenantId: string, webhookId: string, options: CallOptions = {}): Promise<Webhook> =>
      unwrap(await send({ route: r.get, params: { tenantId, webhookId }, options })),
    /** `enabled: false` pauses deliveries; `true` resumes what is queued, at once. */
    update: async (
      tenantId: string,
      webhookId: string,
      body: UpdateWebhookBody,
      options: CallOptions = {},
    ): Promise<Webhook> =>
      unwrap(await send({ route: r.update, params: { tenantId, webhookId }, body, options })),
    /** Removes the endpoint and its queued deliveries. */
    remove: async (tenantId: string, webhookId: string, options: CallOptions = {}): Promise<void> =>
      unwrapNoContent(await send({ route: r.remove, params: { tenantId, webhookId }, options })),
    /** A new secret; the previous one also signs deliveries for 24 hours. */
    rotateSecret: async (
      tenantId: string,
      webhookId: string,
      options: CreateOptions = {},
    ): Promise<WebhookWithSecret> =>
      unwrap(await send({ route: r.rotateSecret, params: { tenantId, webhookId }, options })),
    /** Newest first; `status` filters. */
    listDeliveries: async (
      tenantId: string,
      webhookId: string,
      query: QueryOf<Contract['webhooks']['listDeliveries']> = {},
      options: CallOptions = {},
    ): Promise<Page<WebhookDelivery>> =>
      unwrapPage(await send({ route: r.listDeliveries, params: { tenantId, webhookId }, query, options })),
    /** PENDING again, due now, in its place in the endpoint's order. */
    retryDelivery: async (
      tenantId: string,
      webhookId: string,
      deliveryId: string,
      options: CreateOptions = {},
    ): Promise<WebhookDelivery> =>
      unwrap(await send({ route: r.retryDelivery, params: { tenantId, webhookId, deliveryId }, options })),
  };
  return webhooks;
}

/**
 * The platform's endpoints (super administrators): they receive every tenant's events and the
 * platform's. The same methods as a tenant's, without the tenant.
 */
export function platformWebhooksOf(send: Send) {
  const r = routes.platformWebhooks;
  const webhooks = {
    create: async (body: CreateWebhookBody, options: CreateOptions = {}): Promise<WebhookWithSecret> =>
      unwrap(await send({ route: r.create, params: {}, body, options })),
    list: async (
      query: QueryOf<Contract['platformWebhooks']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Webhook>> => unwrapPage(await send({ route: r.list, params: {}, query, options })),
    listAll: (
      query: ListQuery<Contract['platformWebhooks']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Webhook> => allPages((cursor) => webhooks.list({ ...query, cursor }, options)),
    get: async (webhookId: string, options: CallOptions = {}): Promise<Webhook> =>
      unwrap(await send({ route: r.get, params: { webhookId }, options })),
    update: async (webhookId: string, body: UpdateWebhookBody, options: CallOptions = {}): Promise<Webhook> =>
      unwrap(await send({ route: r.update, params: { webhookId }, body, options })),
    remove: async (webhookId: string, options: CallOptions = {}): Promise<void> =>
      unwrapNoContent(await send({ route: r.remove, params: { webhookId }, options })),
    rotateSecret: async (webhookId: string, options: CreateOptions = {}): Promise<WebhookWithSecret> =>
      unwrap(await send({ route: r.rotateSecret, params: { webhookId }, options })),
    listDeliveries: async (
      webhookId: string,
      query: QueryOf<Contract['platformWebhooks']['listDeliveries']> = {},
      options: CallOptions = {},
    ): Promise<Page<WebhookDelivery>> =>
      unwrapPage(await send({ route: r.listDeliveries, params: { webhookId }, query, options })),
    retryDelivery: async (
      webhookId: string,
      deliveryId: string,
      options: CreateOptions = {},
    ): Promise<WebhookDelivery> =>
      unwrap(await send({ route: r.retryDelivery, params: { webhookId, deliveryId }, options })),
  };
  return webhooks;
}
