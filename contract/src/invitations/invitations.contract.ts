import { initContract } from '@ts-rest/core';
import { EmptyBodySchema } from '../common/empty-body.js';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { MembershipSchema } from '../memberships/memberships.schemas.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateInvitationBodySchema,
  InvitationIdParams,
  InvitationSchema,
  ListInvitationsQuerySchema,
  MyInvitationIdParams,
  MyInvitationSchema,
} from './invitations.schemas.js';

const c = initContract();

const TenantPostHeaders = TenantHeaders.merge(IdempotencyHeaders);

const routes = c.router({
  create: {
    method: 'POST',
    path: '/tenants/:tenantId/invitations',
    pathParams: TenantIdParams,
    headers: TenantPostHeaders,
    body: CreateInvitationBodySchema,
    responses: { 201: successEnvelope(InvitationSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['ROLE_HIERARCHY_VIOLATION', 'MEMBERSHIP_ALREADY_EXISTS', 'INVITATION_ALREADY_PENDING'],
    } satisfies RouteMetadata,
    summary: 'Invite someone by email, to join when they accept',
    description:
      'Nothing is created for the person until they accept under their own verified email. One ' +
      'pending invitation per address and tenant; an address that already has a membership here ' +
      '(in any status) cannot be invited.',
  },
  list: {
    method: 'GET',
    path: '/tenants/:tenantId/invitations',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListInvitationsQuerySchema,
    responses: { 200: listEnvelope(InvitationSchema) },
    metadata: { access: 'tenantAdmin' } satisfies RouteMetadata,
    summary: "List the tenant's invitations, oldest first",
  },
  get: {
    method: 'GET',
    path: '/tenants/:tenantId/invitations/:invitationId',
    pathParams: InvitationIdParams,
    headers: TenantHeaders,
    responses: { 200: successEnvelope(InvitationSchema) },
    metadata: { access: 'tenantAdmin', errors: ['INVITATION_NOT_FOUND'] } satisfies RouteMetadata,
    summary: 'Read one invitation of the tenant',
  },
  resend: {
    method: 'POST',
    path: '/tenants/:tenantId/invitations/:invitationId/resend',
    pathParams: InvitationIdParams,
    headers: TenantPostHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(InvitationSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: [
        'INVITATION_NOT_FOUND',
        'ROLE_HIERARCHY_VIOLATION',
        'INVITATION_NOT_PENDING',
        'MEMBERSHIP_ALREADY_EXISTS',
        'INVITATION_ALREADY_PENDING',
      ],
    } satisfies RouteMetadata,
    summary: 'Give a PENDING or EXPIRED invitation a new `expiresAt`: 7 days from now',
    description:
      'An EXPIRED invitation becomes PENDING again, unless the address has another pending ' +
      'invitation to the tenant by now (409 INVITATION_ALREADY_PENDING) or has become a member.',
  },
  revoke: {
    method: 'POST',
    path: '/tenants/:tenantId/invitations/:invitationId/revoke',
    pathParams: InvitationIdParams,
    headers: TenantPostHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(InvitationSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['INVITATION_NOT_FOUND', 'ROLE_HIERARCHY_VIOLATION', 'INVITATION_NOT_PENDING'],
    } satisfies RouteMetadata,
    summary: 'Withdraw a PENDING invitation',
  },
  listMine: {
    method: 'GET',
    path: '/me/invitations',
    responses: { 200: successEnvelope(MyInvitationSchema.array()) },
    metadata: { access: 'authenticated' } satisfies RouteMetadata,
    summary: "The pending invitations addressed to the caller's verified email, oldest first",
    description:
      'Matched on the canonical form of the address the identity provider verified; without a ' +
      'verified email, none.',
  },
  accept: {
    method: 'POST',
    path: '/me/invitations/:invitationId/accept',
    pathParams: MyInvitationIdParams,
    headers: IdempotencyHeaders,
    body: EmptyBodySchema,
    responses: { 201: successEnvelope(MembershipSchema) },
    metadata: {
      access: 'authenticated',
      errors: [
        'INVITATION_NOT_FOUND',
        'INVITATION_NOT_PENDING',
        'INVITATION_EXPIRED',
        'MEMBERSHIP_ALREADY_EXISTS',
      ],
    } satisfies RouteMetadata,
    summary: 'Accept an invitation: the caller becomes a member, with its role',
    description: 'Answers the new membership (ETag: its version); the invitation is then ACCEPTED.',
  },
  decline: {
    method: 'POST',
    path: '/me/invitations/:invitationId/decline',
    pathParams: MyInvitationIdParams,
    headers: IdempotencyHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(InvitationSchema) },
    metadata: {
      access: 'authenticated',
      errors: ['INVITATION_NOT_FOUND', 'INVITATION_NOT_PENDING', 'INVITATION_EXPIRED'],
    } satisfies RouteMetadata,
    summary: 'Decline an invitation',
  },
});

/**
 * Invitations a person accepts: the tenant's admins send, list, resend and revoke them (tenant
 * routes); the invitee lists, accepts or declines those addressed to their verified email (their
 * own routes under /me, where anyone else's invitation is not found).
 */
export const invitationsContract = withErrorResponses(routes);
