import { initContract } from '@ts-rest/core';
import { EmptyBodySchema } from '../common/empty-body.js';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { listEnvelope, successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  GuardianLinkIdParams,
  GuardianLinkSchema,
  ListGuardianLinksQuerySchema,
  MyGuardianSchema,
  PairingCodeSchema,
  RedeemPairingCodeBodySchema,
  SchoolGuardianLinkSchema,
  StudentParams,
  TenantAccessSummarySchema,
  UserInTenantParams,
  WardSchema,
} from './guardians.schemas.js';

const c = initContract();

const TenantPostHeaders = TenantHeaders.merge(IdempotencyHeaders);

const routes = c.router({
  createPairingCode: {
    method: 'POST',
    path: '/tenants/:tenantId/students/:userId/pairing-codes',
    pathParams: StudentParams,
    headers: TenantPostHeaders,
    body: EmptyBodySchema,
    responses: { 201: successEnvelope(PairingCodeSchema) },
    metadata: {
      access: 'tenantCaller',
      errors: ['STUDENT_NOT_FOUND'],
    } satisfies RouteMetadata,
    summary: 'Make a pairing code a guardian redeems to be linked to the student',
    description:
      'For the student themself, or a TEACHER and above. Single use, valid 7 days; at most 5 live ' +
      'per student: a sixth revokes the oldest. The code is shown this once.',
  },
  listStudentGuardians: {
    method: 'GET',
    path: '/tenants/:tenantId/students/:userId/guardians',
    pathParams: StudentParams,
    headers: TenantHeaders,
    responses: { 200: successEnvelope(SchoolGuardianLinkSchema.array()) },
    metadata: { access: 'tenantTeacher', errors: ['STUDENT_NOT_FOUND'] } satisfies RouteMetadata,
    summary: "A student's guardian links, oldest first (addresses for ADMINs and above only)",
  },
  listLinks: {
    method: 'GET',
    path: '/tenants/:tenantId/guardian-links',
    pathParams: TenantIdParams,
    headers: TenantHeaders,
    query: ListGuardianLinksQuerySchema,
    responses: { 200: listEnvelope(SchoolGuardianLinkSchema) },
    metadata: { access: 'tenantTeacher' } satisfies RouteMetadata,
    summary: "The tenant's guardian links, oldest first (addresses for ADMINs and above only)",
  },
  removeLink: {
    method: 'DELETE',
    path: '/tenants/:tenantId/guardian-links/:guardianLinkId',
    pathParams: GuardianLinkIdParams,
    headers: TenantHeaders,
    body: c.noBody(),
    responses: { 200: successEnvelope(GuardianLinkSchema) },
    metadata: {
      access: 'tenantCaller',
      errors: ['GUARDIAN_LINK_NOT_FOUND'],
    } satisfies RouteMetadata,
    summary: 'Revoke a guardian link: an ADMIN and above, or the guardian themself',
    description: 'The link is kept, REVOKED, with `revokedAt`; revoking a REVOKED link answers it as it is.',
  },
  accessOf: {
    method: 'GET',
    path: '/tenants/:tenantId/access/:userId',
    pathParams: UserInTenantParams,
    headers: TenantHeaders,
    responses: { 200: successEnvelope(TenantAccessSummarySchema) },
    metadata: { access: 'tenantAdmin' } satisfies RouteMetadata,
    summary: "A user's role and status here, and whose guardian they are: for the platform's other apps",
  },
  redeem: {
    method: 'POST',
    path: '/me/guardian-links',
    headers: IdempotencyHeaders,
    body: RedeemPairingCodeBodySchema,
    responses: { 201: successEnvelope(GuardianLinkSchema) },
    metadata: {
      access: 'authenticated',
      errors: [
        'PAIRING_CODE_NOT_FOUND',
        'GUARDIAN_LINK_ALREADY_EXISTS',
        'GUARDIAN_LIMIT_REACHED',
        'GUARDIAN_OF_SELF',
      ],
    } satisfies RouteMetadata,
    summary: 'Redeem a pairing code: the caller becomes an ACTIVE guardian of its student',
    description:
      'A wrong, used or expired code is one 404; tries are limited per caller and per address (429).',
  },
  listWards: {
    method: 'GET',
    path: '/me/wards',
    responses: { 200: successEnvelope(WardSchema.array()) },
    metadata: { access: 'authenticated' } satisfies RouteMetadata,
    summary: "The caller's ACTIVE guardian links: each student's name and membership status",
  },
  listMyGuardians: {
    method: 'GET',
    path: '/me/guardians',
    responses: { 200: successEnvelope(MyGuardianSchema.array()) },
    metadata: { access: 'authenticated' } satisfies RouteMetadata,
    summary: "The caller's own ACTIVE guardians, in every tenant",
  },
});

/**
 * Guardians: people linked to a student of a tenant, who are not members of it. The school makes
 * pairing codes and manages links (tenant routes); a guardian redeems a code and lists their
 * wards, a student their guardians (routes under /me).
 */
export const guardiansContract = withErrorResponses(routes);
