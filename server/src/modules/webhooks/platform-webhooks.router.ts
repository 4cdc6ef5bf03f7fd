import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import { auditContextOf, requesterOf } from '../../routing/request-context.js';
import {
  changePlatformEndpoint,
  createPlatformEndpoint,
  removePlatformEndpoint,
  retryPlatformDelivery,
  rotatePlatformEndpointSecret,
} from './platform-webhooks.service.js';
import type { WebhookTargets } from './webhook-endpoints.service.js';
import { getEndpoint, listDeliveriesPage, listEndpointsPage } from './webhook-reads.service.js';
import { toWebhookWithSecretDto } from './webhook-with-secret.dto.js';
import { toWebhookDeliveryDto, toWebhookDto } from './webhooks.dto.js';

/** The platform's endpoints (tenant null): every tenant's events and the platform's. */
const PLATFORM = null;

/**
 * Platform routes, for super administrators: reads decide on the caller read with their data,
 * changes were decided by the authorise middleware and own their transactions.
 */
export const platformWebhooksRouter = (db: Database, targets: WebhookTargets) =>
  enveloped(contract.platformWebhooks, {
    create: async ({ req, body }) => ({
      status: 201,
      data: toWebhookWithSecretDto(await createPlatformEndpoint(db, auditContextOf(req), targets, body)),
    }),
    list: async ({ req, query }) => {
      const page = await listEndpointsPage(db, requesterOf(req), PLATFORM, query);
      return { status: 200, data: page.items.map(toWebhookDto), meta: { nextCursor: page.nextCursor } };
    },
    get: async ({ req, params }) => ({
      status: 200,
      data: toWebhookDto(await getEndpoint(db, requesterOf(req), PLATFORM, params.webhookId)),
    }),
    update: async ({ req, params, body }) => ({
      status: 200,
      data: toWebhookDto(
        await changePlatformEndpoint(db, auditContextOf(req), targets, params.webhookId, body),
      ),
    }),
    remove: async ({ req, params }) => {
      await removePlatformEndpoint(db, auditContextOf(req), params.webhookId);
      return { status: 204 };
    },
    rotateSecret: async ({ req, params }) => ({
      status: 200,
      data: toWebhookWithSecretDto(
        await rotatePlatformEndpointSecret(db, auditContextOf(req), params.webhookId),
      ),
    }),
    listDeliveries: async ({ req, params, query }) => {
      const page = await listDeliveriesPage(db, requesterOf(req), PLATFORM, params.webhookId, query);
      return {
        status: 200,
        data: page.items.map(toWebhookDeliveryDto),
        meta: { nextCursor: page.nextCursor },
      };
    },
    retryDelivery: async ({ req, params }) => ({
      status: 200,
      data: toWebhookDeliveryDto(
        await retryPlatformDelivery(db, auditContextOf(req), params.webhookId, params.deliveryId),
      ),
    }),
  });
