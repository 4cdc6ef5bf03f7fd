import { initContract } from '@ts-rest/core';
import { IdempotencyHeaders, IfMatchHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateTenantBodySchema,
  ListTenantsQuerySchema,
  RestoreTenantBodySchema,
  TenantSchema,
  UpdateTenantBodySchema,
} from './tenants.schemas.js';

const c = initContract();

const routes = c.router(
  {
    create: {
      method: 'POST',
      path: '/admin/tenants',
      headers: IdempotencyHeaders,
      body: CreateTenantBodySchema,
      responses: { 201: successEnvelope(TenantSchema) },
      metadata: { errors: ['USER_NOT_FOUND', 'TENANT_SLUG_TAKEN'] } satisfies Partial<RouteMetadata>,
      summary: 'Create a tenant with its first OWNER',
      description:
        'The owner is named by `userId`, or by `email` (an unknown email creates an invited user). ' +
        'The tenant and the OWNER membership are created in one transaction.',
    },
    list: {
      method: 'GET',
      path: '/admin/tenants',
      query: ListTenantsQuerySchema,
      responses: { 200: listEnvelope(TenantSchema) },
      summary: 'List tenants in creation order',
    },
    get: {
      method: 'GET',
      path: '/admin/tenants/:tenantId',
      pathParams: TenantIdParams,
      headers: TenantHeaders,
      responses: { 200: successEnvelope(TenantSchema) },
      summary: 'Read one tenant (ETag: its version)',
    },
    update: {
      method: 'PATCH',
      path: '/admin/tenants/:tenantId',
      pathParams: TenantIdParams,
      headers: TenantHeaders.merge(IfMatchHeaders),
      body: UpdateTenantBodySchema,
      responses: { 200: successEnvelope(TenantSchema) },
      metadata: { errors: ['TENANT_SLUG_TAKEN', 'PRECONDITION_FAILED'] } satisfies Partial<RouteMetadata>,
      summary: 'Rename a tenant or change its slug',
    },
    remove: {
      method: 'DELETE',
      path: '/admin/tenants/:tenantId',
      pathParams: TenantIdParams,
      headers: TenantHeaders.merge(IfMatchHeaders),
      body: c.noBody(),
      responses: { 204: c.noBody() },
      metadata: { errors: ['PRECONDITION_FAILED'] } satisfies Partial<RouteMetadata>,
      summary: 'Delete a tenant (restorable until its purgeAfter)',
      description:
        'Marks the tenant deleted: every route then treats it as missing, and its slug stays taken. ' +
        'Nothing is removed: `POST /admin/tenants/{tenantId}/restore` brings it back, memberships ' +
        'included, until `purgeAfter` (TENANT_RETENTION_DAYS after the deletion); the purge then ' +
        'removes it for good.',
    },
    restore: {
      method: 'POST',
      path: '/admin/tenants/:tenantId/restore',
      pathParams: TenantIdParams,
      headers: TenantHeaders.merge(IdempotencyHeaders),
      body: RestoreTenantBodySchema,
      responses: { 200: successEnvelope(TenantSchema) },
      summary: 'Restore a deleted tenant, within its retention period',
      description:
        'The tenant is active again, with its memberships, and its version grows by one. A tenant ' +
        'past its `purgeAfter`, or purged, is 404 TENANT_NOT_FOUND. Restoring an active tenant ' +
        'answers it unchanged, so that a retried restore gives the same answer.',
    },
  },
  { metadata: { access: 'superAdmin' } satisfies RouteMetadata },
);

/**
 * Platform routes: super administrators only. Each route's error statuses come from its codes:
 * those of `metadata.errors` and those its access rule and shape imply (see route-errors.ts).
 */
export const tenantsContract = withErrorResponses(routes);
