import { initContract } from '@ts-rest/core';
import { EmptyBodySchema } from '../common/empty-body.js';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { MembershipSchema } from '../memberships/memberships.schemas.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateJoinCodeBodySchema,
  JoinBodySchema,
  JoinCodeIdParams,
  JoinCodeParams,
  JoinCodeSchema,
  JoinPreviewSchema,
  ListJoinCodesQuerySchema,
} from './join-codes.schemas.js';
import { JoinRequestSchema } from './join-requests.schemas.js';

const c = initContract();

const TenantPostHeaders = TenantHeaders.merge(IdempotencyHeaders);

const routes = c.router({
  create: {
    method: 'POST',
    path: '/tenants/:tenantId/join-codes',
    pathParams: TenantIdParams,
    headers: TenantPostHeaders,
    body: CreateJoinCodeBodySchema,
    responses: { 201: successEnvelope(JoinCodeSchema) },
    metadata: { access: 'tenantTeacher', errors: ['ROLE_HIERARCHY_VIOLATION'] } satisfies RouteMetadata,
    summary: 'Make a join code: people who type it join the tenant (or ask to)',
    description:
      'A TEACHER or above makes codes for STUDENT, an ADMIN or above for TEACHER; no code gives ADMIN ' +
      'or OWNER. It stops at `expiresAt` (default 14 days, at most 90), after `maxUses` people, or when revoked.',
  },
  list: {
    method: 'GET',
    path: '/tenants/:tenantId/join-codes',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListJoinCodesQuerySchema,
    responses: { 200: listEnvelope(JoinCodeSchema) },
    metadata: { access: 'tenantTeacher' } satisfies RouteMetadata,
    summary: "The tenant's join codes the caller may make (a TEACHER: the STUDENT ones), oldest first",
  },
  rotate: {
    method: 'POST',
    path: '/tenants/:tenantId/join-codes/:joinCodeId/rotate',
    pathParams: JoinCodeIdParams,
    headers: TenantPostHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(JoinCodeSchema) },
    metadata: {
      access: 'tenantTeacher',
      errors: ['JOIN_CODE_NOT_FOUND', 'ROLE_HIERARCHY_VIOLATION'],
    } satisfies RouteMetadata,
    summary: 'Give the code new characters: the old ones stop at once',
    description: 'Its role, expiry, uses and limit stay. A revoked code is not found.',
  },
  revoke: {
    method: 'DELETE',
    path: '/tenants/:tenantId/join-codes/:joinCodeId',
    pathParams: JoinCodeIdParams,
    headers: TenantHeaders,
    body: c.noBody(),
    responses: { 204: c.noBody() },
    metadata: {
      access: 'tenantTeacher',
      errors: ['JOIN_CODE_NOT_FOUND', 'ROLE_HIERARCHY_VIOLATION'],
    } satisfies RouteMetadata,
    summary: 'Revoke a code: it stops at once (requests made with it stay)',
  },
  join: {
    method: 'POST',
    path: '/join',
    headers: IdempotencyHeaders,
    body: JoinBodySchema,
    responses: {
      200: successEnvelope(MembershipSchema),
      201: successEnvelope(MembershipSchema),
      202: successEnvelope(JoinRequestSchema),
    },
    metadata: {
      access: 'authenticated',
      errors: ['JOIN_CODE_NOT_FOUND', 'MEMBERSHIP_NOT_ACTIVE', 'JOIN_BLOCKED'],
    } satisfies RouteMetadata,
    summary: 'Join a tenant with a code',
    description:
      '201: the new ACTIVE membership; 202: a join request, when the code requires approval (or the ' +
      "caller's pending one); 200: the caller's ACTIVE membership, unchanged. A wrong, expired, revoked " +
      'or used-up code is the same 404. Tries are limited per caller and per address (429, `Retry-After`).',
  },
  preview: {
    method: 'GET',
    path: '/join/:code',
    pathParams: JoinCodeParams,
    responses: { 200: successEnvelope(JoinPreviewSchema) },
    metadata: { access: 'authenticated', errors: ['JOIN_CODE_NOT_FOUND'] } satisfies RouteMetadata,
    summary: 'What a code would do for the caller, without joining',
    description: 'Counts as a try, as POST /join does (429, `Retry-After`).',
  },
});

/**
 * Codes people type to join a tenant: a tenant's TEACHERs and above make, list, rotate and revoke
 * them; any signed-in person redeems one (or looks at what it would do).
 */
export const joinCodesContract = withErrorResponses(routes);
