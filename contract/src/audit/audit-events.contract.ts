import { initContract } from '@ts-rest/core';
import { TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  AuditEventSchema,
  ListAllAuditEventsQuerySchema,
  ListTenantAuditEventsQuerySchema,
} from './audit-events.schemas.js';

const c = initContract();

const routes = c.router({
  listForTenant: {
    method: 'GET',
    path: '/tenants/:tenantId/audit-events',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListTenantAuditEventsQuerySchema,
    responses: { 200: listEnvelope(AuditEventSchema) },
    metadata: { access: 'tenantAdmin' } satisfies RouteMetadata,
    summary: "The tenant's audit trail, newest first (by sequence)",
    description:
      'Every committed change of the tenant, its memberships, invitations and ownership transfers, ' +
      'with who made it and the resource before and after. `sequence` counts 1, 2, 3… per tenant ' +
      'without gaps: a consumer that saw N has seen everything up to N.',
  },
  listAll: {
    method: 'GET',
    path: '/admin/audit-events',
    query: ListAllAuditEventsQuerySchema,
    responses: { 200: listEnvelope(AuditEventSchema) },
    metadata: { access: 'superAdmin' } satisfies RouteMetadata,
    summary: 'Every audit event, platform events included, newest first (by occurredAt, then id)',
  },
});

export const auditEventsContract = withErrorResponses(routes);
