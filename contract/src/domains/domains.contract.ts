import { initContract } from '@ts-rest/core';
import { EmptyBodySchema } from '../common/empty-body.js';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateDomainBodySchema,
  DomainIdParams,
  DomainSchema,
  ListDomainsQuerySchema,
  TenantDomainParams,
  UpdateDomainBodySchema,
} from './domains.schemas.js';

const c = initContract();

const routes = c.router({
  create: {
    method: 'POST',
    path: '/tenants/:tenantId/domains',
    pathParams: TenantIdParams,
    headers: TenantHeaders.merge(IdempotencyHeaders),
    body: CreateDomainBodySchema,
    responses: { 201: successEnvelope(DomainSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['ROLE_HIERARCHY_VIOLATION', 'DOMAIN_ALREADY_CLAIMED'],
    } satisfies RouteMetadata,
    summary: "Add the school's mail domain: people with a verified address at it join (or ask to)",
    description:
      "Verified at once when the caller's own verified address is at the domain (or a subdomain, with " +
      '`includeSubdomains`); otherwise it waits for a super administrator (POST /admin/domains/:domainId/verify). ' +
      'Consumer and disposable mail domains, public suffixes and IP addresses are refused. A domain another ' +
      'tenant verified is 409.',
  },
  list: {
    method: 'GET',
    path: '/tenants/:tenantId/domains',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListDomainsQuerySchema,
    responses: { 200: listEnvelope(DomainSchema) },
    metadata: { access: 'tenantAdmin' } satisfies RouteMetadata,
    summary: "The tenant's domains, oldest first",
  },
  get: {
    method: 'GET',
    path: '/tenants/:tenantId/domains/:domainId',
    pathParams: TenantDomainParams,
    headers: TenantHeaders,
    responses: { 200: successEnvelope(DomainSchema) },
    metadata: { access: 'tenantAdmin', errors: ['DOMAIN_NOT_FOUND'] } satisfies RouteMetadata,
    summary: 'Read one domain of the tenant',
  },
  update: {
    method: 'PATCH',
    path: '/tenants/:tenantId/domains/:domainId',
    pathParams: TenantDomainParams,
    headers: TenantHeaders,
    body: UpdateDomainBodySchema,
    responses: { 200: successEnvelope(DomainSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['DOMAIN_NOT_FOUND', 'ROLE_HIERARCHY_VIOLATION'],
    } satisfies RouteMetadata,
    summary: "Change a domain's mode or role (only an OWNER changes a TEACHER domain)",
    description:
      'Acts on sign-ins from now on: those the domain already let in, or asked for, stay as they are.',
  },
  remove: {
    method: 'DELETE',
    path: '/tenants/:tenantId/domains/:domainId',
    pathParams: TenantDomainParams,
    headers: TenantHeaders,
    body: c.noBody(),
    responses: { 204: c.noBody() },
    metadata: {
      access: 'tenantAdmin',
      errors: ['DOMAIN_NOT_FOUND', 'ROLE_HIERARCHY_VIOLATION'],
    } satisfies RouteMetadata,
    summary: 'Remove a domain: it stops acting at once (memberships and requests it made stay)',
  },
  verify: {
    method: 'POST',
    path: '/admin/domains/:domainId/verify',
    pathParams: DomainIdParams,
    headers: IdempotencyHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(DomainSchema) },
    metadata: {
      access: 'superAdmin',
      errors: ['DOMAIN_NOT_FOUND', 'DOMAIN_ALREADY_CLAIMED'],
    } satisfies RouteMetadata,
    summary: "Verify a tenant's domain (a super administrator, having checked the school owns it)",
    description: 'A domain already verified is answered as it is. One another tenant verified is 409.',
  },
});

/**
 * A tenant's verified mail domains: its OWNERs and ADMINs add, read, change and remove them; a
 * super administrator verifies those the adder's own address could not.
 */
export const domainsContract = withErrorResponses(routes);
