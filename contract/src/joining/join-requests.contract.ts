import { initContract } from '@ts-rest/core';
import { EmptyBodySchema } from '../common/empty-body.js';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { MembershipSchema } from '../memberships/memberships.schemas.js';
import { withErrorResponses } from '../route-errors.js';
import {
  ApproveJoinRequestBodySchema,
  JoinBlockParams,
  JoinRequestIdParams,
  JoinRequestSchema,
  ListJoinRequestsQuerySchema,
  MyJoinRequestIdParams,
  MyJoinRequestSchema,
} from './join-requests.schemas.js';

const c = initContract();

const TenantPostHeaders = TenantHeaders.merge(IdempotencyHeaders);

const DECIDE_ERRORS = [
  'JOIN_REQUEST_NOT_FOUND',
  'ROLE_HIERARCHY_VIOLATION',
  'JOIN_REQUEST_NOT_PENDING',
] as const;

const routes = c.router({
  list: {
    method: 'GET',
    path: '/tenants/:tenantId/join-requests',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListJoinRequestsQuerySchema,
    responses: { 200: listEnvelope(JoinRequestSchema) },
    metadata: { access: 'tenantTeacher' } satisfies RouteMetadata,
    summary: "The tenant's join requests, oldest first (a TEACHER: those for STUDENT)",
  },
  approve: {
    method: 'POST',
    path: '/tenants/:tenantId/join-requests/:joinRequestId/approve',
    pathParams: JoinRequestIdParams,
    headers: TenantPostHeaders,
    body: ApproveJoinRequestBodySchema,
    responses: { 201: successEnvelope(MembershipSchema) },
    metadata: {
      access: 'tenantTeacher',
      errors: [...DECIDE_ERRORS, 'MEMBERSHIP_ALREADY_EXISTS'],
    } satisfies RouteMetadata,
    summary: 'Approve a PENDING request: the person becomes an ACTIVE member',
    description: "`role`: at most the request's (the code's); answers the new membership.",
  },
  reject: {
    method: 'POST',
    path: '/tenants/:tenantId/join-requests/:joinRequestId/reject',
    pathParams: JoinRequestIdParams,
    headers: TenantPostHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(JoinRequestSchema) },
    metadata: { access: 'tenantTeacher', errors: [...DECIDE_ERRORS] } satisfies RouteMetadata,
    summary: 'Reject a PENDING request (the person may ask again)',
  },
  block: {
    method: 'POST',
    path: '/tenants/:tenantId/join-requests/:joinRequestId/block',
    pathParams: JoinRequestIdParams,
    headers: TenantPostHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(JoinRequestSchema) },
    metadata: { access: 'tenantTeacher', errors: [...DECIDE_ERRORS] } satisfies RouteMetadata,
    summary: 'Reject a PENDING request and stop the person joining by any code or domain again',
    description: 'Lifted by `DELETE /tenants/:tenantId/join-blocks/:userId` (ADMIN and above).',
  },
  unblock: {
    method: 'DELETE',
    path: '/tenants/:tenantId/join-blocks/:userId',
    pathParams: JoinBlockParams,
    headers: TenantHeaders,
    body: c.noBody(),
    responses: { 204: c.noBody() },
    metadata: { access: 'tenantAdmin', errors: ['JOIN_BLOCK_NOT_FOUND'] } satisfies RouteMetadata,
    summary: 'Lift a block: the person may join with a code again',
  },
  listMine: {
    method: 'GET',
    path: '/me/join-requests',
    responses: { 200: successEnvelope(MyJoinRequestSchema.array()) },
    metadata: { access: 'authenticated' } satisfies RouteMetadata,
    summary: "The caller's join requests, in every status, oldest first",
  },
  cancel: {
    method: 'POST',
    path: '/me/join-requests/:joinRequestId/cancel',
    pathParams: MyJoinRequestIdParams,
    headers: IdempotencyHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(JoinRequestSchema) },
    metadata: {
      access: 'authenticated',
      errors: ['JOIN_REQUEST_NOT_FOUND', 'JOIN_REQUEST_NOT_PENDING'],
    } satisfies RouteMetadata,
    summary: 'Withdraw a PENDING join request of the caller',
  },
});

/**
 * Requests to join, made with a code that requires approval: the tenant's ADMINs (and TEACHERs, for
 * STUDENT) approve, reject or block them; the person lists and cancels their own under /me.
 */
export const joinRequestsContract = withErrorResponses(routes);
