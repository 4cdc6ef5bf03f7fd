import { initContract } from '@ts-rest/core';
import { IfMatchHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import {
  authenticatedErrorResponses,
  ErrorEnvelopeSchema,
  listEnvelope,
  successEnvelope,
} from '../envelope.js';
import {
  CreateTenantBodySchema,
  ListTenantsQuerySchema,
  TenantSchema,
  UpdateTenantBodySchema,
} from './tenants.schemas.js';

const c = initContract();

/** Platform routes: super administrators only. */
export const tenantsContract = c.router(
  {
    create: {
      method: 'POST',
      path: '/admin/tenants',
      body: CreateTenantBodySchema,
      responses: { 201: successEnvelope(TenantSchema), 409: ErrorEnvelopeSchema },
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
      responses: { 200: successEnvelope(TenantSchema), 409: ErrorEnvelopeSchema, 412: ErrorEnvelopeSchema },
      metadata: { errors: ['TENANT_SLUG_TAKEN', 'PRECONDITION_FAILED'] } satisfies Partial<RouteMetadata>,
      summary: 'Rename a tenant or change its slug',
    },
    remove: {
      method: 'DELETE',
      path: '/admin/tenants/:tenantId',
      pathParams: TenantIdParams,
      headers: TenantHeaders.merge(IfMatchHeaders),
      body: c.noBody(),
      responses: { 204: c.noBody(), 412: ErrorEnvelopeSchema },
      metadata: { errors: ['PRECONDITION_FAILED'] } satisfies Partial<RouteMetadata>,
      summary: 'Delete a tenant and all its memberships',
    },
  },
  {
    commonResponses: authenticatedErrorResponses,
    metadata: { access: 'superAdmin' } satisfies RouteMetadata,
  },
);
