import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import { auditContextOf, requesterOf, tenantAccessOf, transactionOf } from '../../routing/request-context.js';
import {
  changeTenantEndpoint,
  createTenantEndpoint,
  removeTenantEndpoint,
  retryTenantDelivery,
  rotateTenantEndpointSecret,
  type TenantWrite,
} from './tenant-webhooks.service.js';
import type { WebhookTargets } from './webhook-endpoints.service.js';
import { getEndpoint, listDeliveriesPage, listEndpointsPage } from './webhook-reads.service.js';
import { toWebhookWithSecretDto } from './webhook-with-secret.dto.js';
import { toWebhookDeliveryDto, toWebhookDto } from './webhooks.dto.js';

/** The request's tenant write: the transaction its access was decided in, the decision, the actor. */
const writeOf = (req: Express.Request): TenantWrite => ({
  tx: transactionOf(req),
  access: tenantAccessOf(req),
  audit: auditContextOf(req),
});

/**
 * A tenant's endpoints. Reads decide on the caller read with their data (any tenant admin);
 * changes run in the transaction their access was decided in, and only an OWNER's go through.
 */
export const webhooksRouter = (db: Database, targets: WebhookTargets) =>
  enveloped(contract.webhooks, {
    create: async ({ req, body }) => ({
      status: 201,
      data: toWebhookWithSecretDto(await createTenantEndpoint(writeOf(req), targets, body)),
    }),
    list: async ({ req, params, query }) => {
      const page = await listEndpointsPage(db, requesterOf(req), params.tenantId, query);
      return { status: 200, data: page.items.map(toWebhookDto), meta: { nextCursor: page.nextCursor } };
    },
    get: async ({ req, params }) => ({
      status: 200,
      data: toWebhookDto(await getEndpoint(db, requesterOf(req), params.tenantId, params.webhookId)),
    }),
    update: async ({ req, params, body }) => ({
      status: 200,
      data: toWebhookDto(await changeTenantEndpoint(writeOf(req), targets, params.webhookId, body)),
    }),
    remove: async ({ req, params }) => {
      await removeTenantEndpoint(writeOf(req), params.webhookId);
      return { status: 204 };
    },
    rotateSecret: async ({ req, params }) => ({
      status: 200,
      data: toWebhookWithSecretDto(await rotateTenantEndpointSecret(writeOf(req), params.webhookId)),
    }),
    listDeliveries: async ({ req, params, query }) => {
      const page = await listDeliveriesPage(db, requesterOf(req), params.tenantId, params.webhookId, query);
      return {
        status: 200,
        data: page.items.map(toWebhookDeliveryDto),
        meta: { nextCursor: page.nextCursor },
      };
    },
    retryDelivery: async ({ req, params }) => ({
      status: 200,
      data: toWebhookDeliveryDto(
        await retryTenantDelivery(writeOf(req), params.webhookId, params.deliveryId),
      ),
    }),
  });
