import { contract } from '@tms/contract';
import { read, routes, tenantWrite } from '../../pipeline/handlers.js';
import {
  assertTenantTarget,
  changeTenantEndpoint,
  createTenantEndpoint,
  removeTenantEndpoint,
  retryTenantDelivery,
  rotateTenantEndpointSecret,
} from './tenant-webhooks.service.js';
import type { WebhookTargets } from './webhook-endpoints.service.js';
import { getEndpoint, listDeliveriesPage, listEndpointsPage } from './webhook-reads.service.js';
import { toWebhookWithSecretDto } from './webhook-with-secret.dto.js';
import { toWebhookDeliveryDto, toWebhookDto } from './webhooks.dto.js';

/**
 * A tenant's endpoints. Reads decide on the caller read with their data (any tenant admin);
 * changes run in the transaction that locks the tenant, and only an OWNER's go through.
 */
export const webhooksRoutes = (targets: WebhookTargets) =>
  routes(contract.webhooks, {
    create: tenantWrite(
      async (write, { body }) => ({
        status: 201,
        data: toWebhookWithSecretDto(await createTenantEndpoint(write, body)),
      }),
      ({ access }, { body }) => assertTenantTarget(access, targets, body.url),
    ),
    list: read(async ({ db, requester }, { params, query }) => {
      const page = await listEndpointsPage(db, requester, params.tenantId, query);
      return { status: 200, data: page.items.map(toWebhookDto), meta: { nextCursor: page.nextCursor } };
    }),
    get: read(async ({ db, requester }, { params }) => ({
      status: 200,
      data: toWebhookDto(await getEndpoint(db, requester, params.tenantId, params.webhookId)),
    })),
    update: tenantWrite(
      async (write, { params, body }) => ({
        status: 200,
        data: toWebhookDto(await changeTenantEndpoint(write, params.webhookId, body)),
      }),
      ({ access }, { body }) => assertTenantTarget(access, targets, body.url),
    ),
    remove: tenantWrite(async (write, { params }) => {
      await removeTenantEndpoint(write, params.webhookId);
      return { status: 204 };
    }),
    rotateSecret: tenantWrite(async (write, { params }) => ({
      status: 200,
      data: toWebhookWithSecretDto(await rotateTenantEndpointSecret(write, params.webhookId)),
    })),
    listDeliveries: read(async ({ db, requester }, { params, query }) => {
      const page = await listDeliveriesPage(db, requester, params.tenantId, params.webhookId, query);
      return {
        status: 200,
        data: page.items.map(toWebhookDeliveryDto),
        meta: { nextCursor: page.nextCursor },
      };
    }),
    retryDelivery: tenantWrite(async (write, { params }) => ({
      status: 200,
      data: toWebhookDeliveryDto(await retryTenantDelivery(write, params.webhookId, params.deliveryId)),
    })),
  });
