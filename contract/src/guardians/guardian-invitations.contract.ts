import { initContract } from '@ts-rest/core';
import { EmptyBodySchema } from '../common/empty-body.js';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateGuardianInvitationBodySchema,
  GuardianInvitationIdParams,
  GuardianInvitationSchema,
  ListGuardianInvitationsQuerySchema,
  MyGuardianInvitationIdParams,
  MyGuardianInvitationSchema,
} from './guardian-invitations.schemas.js';
import { GuardianLinkSchema, StudentParams } from './guardians.schemas.js';

const c = initContract();

const TenantPostHeaders = TenantHeaders.merge(IdempotencyHeaders);

const routes = c.router({
  create: {
    method: 'POST',
    path: '/tenants/:tenantId/students/:userId/guardian-invitations',
    pathParams: StudentParams,
    headers: TenantPostHeaders,
    body: CreateGuardianInvitationBodySchema,
    responses: { 201: successEnvelope(GuardianInvitationSchema) },
    metadata: {
      access: 'tenantTeacher',
      errors: [
        'STUDENT_NOT_FOUND',
        'GUARDIAN_INVITATION_ALREADY_PENDING',
        'GUARDIAN_LINK_ALREADY_EXISTS',
        'GUARDIAN_OF_SELF',
      ],
    } satisfies RouteMetadata,
    summary: 'Invite someone by email to be a guardian of the student',
    description:
      'PENDING for 14 days; the invitee accepts under their own verified email. One pending ' +
      'invitation per student and address. The six-guardian limit is counted when it is accepted.',
  },
  list: {
    method: 'GET',
    path: '/tenants/:tenantId/guardian-invitations',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListGuardianInvitationsQuerySchema,
    responses: { 200: listEnvelope(GuardianInvitationSchema) },
    metadata: { access: 'tenantTeacher' } satisfies RouteMetadata,
    summary: "The tenant's guardian invitations, oldest first (addresses for ADMINs and above only)",
  },
  revoke: {
    method: 'POST',
    path: '/tenants/:tenantId/guardian-invitations/:guardianInvitationId/revoke',
    pathParams: GuardianInvitationIdParams,
    headers: TenantPostHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(GuardianInvitationSchema) },
    metadata: {
      access: 'tenantTeacher',
      errors: ['GUARDIAN_INVITATION_NOT_FOUND', 'INVITATION_NOT_PENDING'],
    } satisfies RouteMetadata,
    summary: 'Withdraw a PENDING guardian invitation',
  },
  listMine: {
    method: 'GET',
    path: '/me/guardian-invitations',
    responses: { 200: successEnvelope(MyGuardianInvitationSchema.array()) },
    metadata: { access: 'authenticated' } satisfies RouteMetadata,
    summary: "The pending guardian invitations addressed to the caller's verified email, oldest first",
    description:
      'Matched on the canonical form of the address the identity provider verified; without a ' +
      'verified email, none.',
  },
  accept: {
    method: 'POST',
    path: '/me/guardian-invitations/:guardianInvitationId/accept',
    pathParams: MyGuardianInvitationIdParams,
    headers: IdempotencyHeaders,
    body: EmptyBodySchema,
    responses: { 201: successEnvelope(GuardianLinkSchema) },
    metadata: {
      access: 'authenticated',
      errors: [
        'GUARDIAN_INVITATION_NOT_FOUND',
        'INVITATION_NOT_PENDING',
        'INVITATION_EXPIRED',
        'STUDENT_NOT_FOUND',
        'GUARDIAN_LINK_ALREADY_EXISTS',
        'GUARDIAN_LIMIT_REACHED',
        'GUARDIAN_OF_SELF',
      ],
    } satisfies RouteMetadata,
    summary: 'Accept a guardian invitation: the caller becomes an ACTIVE guardian of its student',
    description:
      'Answers the link (source INVITATION, or ROSTER for an invitation a roster import made); a ' +
      'REVOKED link of the same guardian and student becomes ACTIVE again. The invitation is then ACCEPTED.',
  },
  decline: {
    method: 'POST',
    path: '/me/guardian-invitations/:guardianInvitationId/decline',
    pathParams: MyGuardianInvitationIdParams,
    headers: IdempotencyHeaders,
    body: EmptyBodySchema,
    responses: { 200: successEnvelope(GuardianInvitationSchema) },
    metadata: {
      access: 'authenticated',
      errors: ['GUARDIAN_INVITATION_NOT_FOUND', 'INVITATION_NOT_PENDING', 'INVITATION_EXPIRED'],
    } satisfies RouteMetadata,
    summary: 'Decline a guardian invitation',
  },
});

/**
 * Guardian invitations: a TEACHER and above invites someone by email to be a student's guardian
 * (tenant routes); the invitee lists, accepts or declines those addressed to their verified email
 * (their own routes under /me, where anyone else's invitation is not found).
 */
export const guardianInvitationsContract = withErrorResponses(routes);
