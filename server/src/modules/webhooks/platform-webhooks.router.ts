import { contract } from '@tms/contract';
import { read, routes, write } from '../../pipeline/handlers.js';
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
 * changes were decided before their body was read and own their transactions.
 */
export const platformWebhooksRoutes = (targets: WebhookTargets) =>
  routes(contract.platformWebhooks, {
    create: write(async ({ db, audit }, { body }) => ({
      status: 201,
      data: toWebhookWithSecretDto(await createPlatformEndpoint(db, audit, targets, body)),
    })),
    list: read(async ({ db, requester }, { query }) => {
      const page = await listEndpointsPage(db, requester, PLATFORM, query);
      return { status: 200, data: page.items.map(toWebhookDto), meta: { nextCursor: page.nextCursor } };
    }),
    get: read(async ({ db, requester }, { params }) => ({
      status: 200,
      data: toWebhookDto(await getEndpoint(db, requester, PLATFORM, params.webhookId)),
    })),
    update: write(async ({ db, audit }, { params, body }) => ({
      status: 200,
      data: toWebhookDto(await changePlatformEndpoint(db, audit, targets, params.webhookId, body)),
    })),
    remove: write(async ({ db, audit }, { params }) => {
      await removePlatformEndpoint(db, audit, params.webhookId);
      return { status: 204 };
    }),
    rotateSecret: write(async ({ db, audit }, { params }) => ({
      status: 200,
      data: toWebhookWithSecretDto(await rotatePlatformEndpointSecret(db, audit, params.webhookId)),
    })),
    listDeliveries: read(async ({ db, requester }, { params, query }) => {
      const page = await listDeliveriesPage(db, requester, PLATFORM, params.webhookId, query);
      return {
        status: 200,
        data: page.items.map(toWebhookDeliveryDto),
        meta: { nextCursor: page.nextCursor },
      };
    }),
    retryDelivery: write(async ({ db, audit }, { params }) => ({
      status: 200,
      data: toWebhookDeliveryDto(await retryPlatformDelivery(db, audit, params.webhookId, params.deliveryId)),
    })),
  });
