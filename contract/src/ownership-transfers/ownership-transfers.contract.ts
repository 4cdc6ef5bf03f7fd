import { initContract } from '@ts-rest/core';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateOwnershipTransferBodySchema,
  MyTransferIdParams,
  OwnershipTransferSchema,
  TransferActionBodySchema,
  TransferIdParams,
} from './ownership-transfers.schemas.js';

const c = initContract();

const TenantPostHeaders = TenantHeaders.merge(IdempotencyHeaders);

const routes = c.router({
  create: {
    method: 'POST',
    path: '/tenants/:tenantId/ownership-transfers',
    pathParams: TenantIdParams,
    headers: TenantPostHeaders,
    body: CreateOwnershipTransferBodySchema,
    responses: { 201: successEnvelope(OwnershipTransferSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: [
        'INSUFFICIENT_ROLE',
        'MEMBERSHIP_NOT_FOUND',
        'TRANSFER_NOT_APPLICABLE',
        'TRANSFER_ALREADY_PENDING',
      ],
    } satisfies RouteMetadata,
    summary: 'Offer the ownership of the tenant to one of its members (OWNER only)',
    description:
      'By an OWNER, or a super administrator (who, unless an OWNER of the tenant, offers it on behalf ' +
      "of the tenant's oldest ACTIVE OWNER). The nominee must be an ACTIVE member below OWNER; a " +
      'tenant has at most one pending transfer. Nothing changes until the nominee accepts.',
  },
  get: {
    method: 'GET',
    path: '/tenants/:tenantId/ownership-transfers/:transferId',
    pathParams: TransferIdParams,
    headers: TenantHeaders,
    responses: { 200: successEnvelope(OwnershipTransferSchema) },
    metadata: { access: 'tenantAdmin', errors: ['TRANSFER_NOT_FOUND'] } satisfies RouteMetadata,
    summary: 'Read one ownership transfer of the tenant',
  },
  cancel: {
    method: 'POST',
    path: '/tenants/:tenantId/ownership-transfers/:transferId/cancel',
    pathParams: TransferIdParams,
    headers: TenantPostHeaders,
    body: TransferActionBodySchema,
    responses: { 200: successEnvelope(OwnershipTransferSchema) },
    metadata: {
      access: 'tenantAdmin',
      errors: ['INSUFFICIENT_ROLE', 'TRANSFER_NOT_FOUND', 'TRANSFER_NOT_PENDING'],
    } satisfies RouteMetadata,
    summary: 'Withdraw a pending ownership transfer (OWNER only)',
  },
  listMine: {
    method: 'GET',
    path: '/me/ownership-transfers',
    responses: { 200: successEnvelope(OwnershipTransferSchema.array()) },
    metadata: { access: 'authenticated' } satisfies RouteMetadata,
    summary: 'The pending ownership transfers that name the caller as the nominee',
    description: 'At most one per tenant the caller belongs to, oldest first.',
  },
  accept: {
    method: 'POST',
    path: '/me/ownership-transfers/:transferId/accept',
    pathParams: MyTransferIdParams,
    headers: IdempotencyHeaders,
    body: TransferActionBodySchema,
    responses: { 200: successEnvelope(OwnershipTransferSchema) },
    metadata: {
      access: 'authenticated',
      errors: ['TRANSFER_NOT_FOUND', 'TRANSFER_NOT_PENDING', 'TRANSFER_NOT_APPLICABLE'],
    } satisfies RouteMetadata,
    summary: 'Accept the ownership of a tenant (the nominee only)',
    description:
      'In one transaction the nominee becomes OWNER and the initiator ADMIN. If either no longer ' +
      'qualifies (the nominee an ACTIVE member below OWNER, the initiator an ACTIVE OWNER), the ' +
      'transfer is cancelled and the answer is 409 TRANSFER_NOT_APPLICABLE.',
  },
  decline: {
    method: 'POST',
    path: '/me/ownership-transfers/:transferId/decline',
    pathParams: MyTransferIdParams,
    headers: IdempotencyHeaders,
    body: TransferActionBodySchema,
    responses: { 200: successEnvelope(OwnershipTransferSchema) },
    metadata: {
      access: 'authenticated',
      errors: ['TRANSFER_NOT_FOUND', 'TRANSFER_NOT_PENDING'],
    } satisfies RouteMetadata,
    summary: 'Decline the ownership of a tenant (the nominee only)',
  },
});

/**
 * Two-step ownership transfer: an OWNER offers (tenant routes), the nominee accepts or declines
 * (their own routes under /me, where somebody else's transfer is not found).
 */
export const ownershipTransfersContract = withErrorResponses(routes);
