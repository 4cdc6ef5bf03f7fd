import { initContract } from '@ts-rest/core';
import { IdempotencyHeaders, IfMatchHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateMembershipBodySchema,
  ListMembershipsQuerySchema,
  MembershipIdParams,
  MembershipSchema,
  ReactivateMembershipBodySchema,
  SuspendMembershipBodySchema,
  UpdateMembershipBodySchema,
} from './memberships.schemas.js';

const c = initContract();

const routes = c.router(
  {
    list: {
      method: 'GET',
      path: '/tenants/:tenantId/memberships',
      pathParams: TenantIdParams,
      query: ListMembershipsQuerySchema,
      responses: { 200: listEnvelope(MembershipSchema) },
      summary: "List the tenant's memberships: creation order, or by email or name; with a total on request",
    },
    get: {
      method: 'GET',
      path: '/tenants/:tenantId/memberships/:tenantMembershipId',
      pathParams: MembershipIdParams,
      responses: { 200: successEnvelope(MembershipSchema) },
      metadata: { errors: ['MEMBERSHIP_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'Read one membership (ETag: its version)',
    },
    create: {
      method: 'POST',
      path: '/tenants/:tenantId/memberships',
      pathParams: TenantIdParams,
      headers: TenantHeaders.merge(IdempotencyHeaders),
      body: CreateMembershipBodySchema,
      responses: { 201: successEnvelope(MembershipSchema) },
      metadata: {
        errors: ['USER_NOT_FOUND', 'MEMBERSHIP_ALREADY_EXISTS', 'ROLE_HIERARCHY_VIOLATION'],
      } satisfies Partial<RouteMetadata>,
      summary: 'Add a user to the tenant',
      description: 'Name the user by `userId`, or by `email`: an unknown email creates an invited user.',
    },
    update: {
      method: 'PATCH',
      path: '/tenants/:tenantId/memberships/:tenantMembershipId',
      pathParams: MembershipIdParams,
      headers: TenantHeaders.merge(IfMatchHeaders),
      body: UpdateMembershipBodySchema,
      responses: { 200: successEnvelope(MembershipSchema) },
      metadata: {
        errors: [
          'MEMBERSHIP_NOT_FOUND',
          'ROLE_HIERARCHY_VIOLATION',
          'LAST_OWNER',
          'PRECONDITION_FAILED',
          'MEMBERSHIP_MANAGED_BY_DIRECTORY',
        ],
      } satisfies Partial<RouteMetadata>,
      summary: "Change a membership's role or term dates",
      description:
        'Send `role`, `startsAt`, `endsAt` (any of them, at least one; null clears a date). An OWNER ' +
        'membership has no term dates, and a change that leaves the tenant without an ACTIVE OWNER is refused.',
    },
    suspend: {
      method: 'POST',
      path: '/tenants/:tenantId/memberships/:tenantMembershipId/suspend',
      pathParams: MembershipIdParams,
      headers: TenantHeaders.merge(IdempotencyHeaders).merge(IfMatchHeaders),
      body: SuspendMembershipBodySchema,
      responses: { 200: successEnvelope(MembershipSchema) },
      metadata: {
        errors: [
          'MEMBERSHIP_NOT_FOUND',
          'ROLE_HIERARCHY_VIOLATION',
          'LAST_OWNER',
          'PRECONDITION_FAILED',
          'MEMBERSHIP_MANAGED_BY_DIRECTORY',
        ],
      } satisfies Partial<RouteMetadata>,
      summary: 'Suspend a membership: it stays, with its role, but grants no access',
      description:
        'Suspending a SUSPENDED membership changes nothing (its first suspension and reason stay).',
    },
    reactivate: {
      method: 'POST',
      path: '/tenants/:tenantId/memberships/:tenantMembershipId/reactivate',
      pathParams: MembershipIdParams,
      headers: TenantHeaders.merge(IdempotencyHeaders).merge(IfMatchHeaders),
      body: ReactivateMembershipBodySchema,
      responses: { 200: successEnvelope(MembershipSchema) },
      metadata: {
        errors: [
          'MEMBERSHIP_NOT_FOUND',
          'ROLE_HIERARCHY_VIOLATION',
          'PRECONDITION_FAILED',
          'MEMBERSHIP_MANAGED_BY_DIRECTORY',
        ],
      } satisfies Partial<RouteMetadata>,
      summary: 'Make a membership ACTIVE again, with its role unchanged',
      description:
        'Lifts the suspension, and whatever else keeps it from being ACTIVE now: an `endsAt` that has ' +
        'passed and a `startsAt` still to come are cleared; the other dates stay.',
    },
    remove: {
      method: 'DELETE',
      path: '/tenants/:tenantId/memberships/:tenantMembershipId',
      pathParams: MembershipIdParams,
      headers: TenantHeaders.merge(IfMatchHeaders),
      body: c.noBody(),
      responses: { 204: c.noBody() },
      metadata: {
        errors: [
          'MEMBERSHIP_NOT_FOUND',
          'ROLE_HIERARCHY_VIOLATION',
          'LAST_OWNER',
          'PRECONDITION_FAILED',
          'MEMBERSHIP_MANAGED_BY_DIRECTORY',
        ],
      } satisfies Partial<RouteMetadata>,
      summary: 'Remove a user from the tenant',
    },
  },
  { baseHeaders: TenantHeaders, metadata: { access: 'tenantAdmin' } satisfies RouteMetadata },
);

/**
 * Tenant routes: OWNER or ADMIN of the URL's tenant, or a super administrator. Each route's error
 * statuses come from its codes (see route-errors.ts).
 */
export const membershipsContract = withErrorResponses(routes);
