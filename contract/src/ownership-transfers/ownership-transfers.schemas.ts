import { z } from 'zod';
import { EmptyBodySchema } from '../common/empty-body.js';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { TRANSFER_STATUSES } from '../lifecycle.js';

export const TransferStatusSchema = z
  .enum(TRANSFER_STATUSES)
  .describe('EXPIRED: still pending when `expiresAt` passed, so it can no longer be accepted');

export const OwnershipTransferSchema = z.object({
  transferId: UuidSchema,
  tenantId: UuidSchema,
  fromMembershipId: UuidSchema.describe('The OWNER membership that becomes ADMIN on acceptance'),
  toMembershipId: UuidSchema.describe('The nominee: the membership that becomes OWNER on acceptance'),
  status: TransferStatusSchema,
  expiresAt: TimestampSchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type OwnershipTransfer = z.infer<typeof OwnershipTransferSchema>;

export const TRANSFER_EXPIRY_DAYS = { min: 1, max: 14, default: 3 } as const;

export const CreateOwnershipTransferBodySchema = z
  .object({
    toMembershipId: UuidSchema.describe('An ACTIVE membership of this tenant, below OWNER'),
    expiresInDays: z
      .number()
      .int()
      .min(TRANSFER_EXPIRY_DAYS.min)
      .max(TRANSFER_EXPIRY_DAYS.max)
      .default(TRANSFER_EXPIRY_DAYS.default)
      .describe(
        `How long the nominee has to accept, in days: ${TRANSFER_EXPIRY_DAYS.min} to ${TRANSFER_EXPIRY_DAYS.max} (default ${TRANSFER_EXPIRY_DAYS.default})`,
      ),
  })
  .strict();
/** As the caller writes it: `expiresInDays` may be left out. */
export type CreateOwnershipTransferBody = z.input<typeof CreateOwnershipTransferBodySchema>;

/** Cancel, accept and decline take no body; an empty object is accepted, anything in it is not. */
export const TransferActionBodySchema = EmptyBodySchema;

export const TransferIdParams = z.object({
  tenantId: UuidSchema.describe(
    "The tenant's `tenantId` (a UUID), as `POST /admin/tenants` or `GET /me` gave it",
  ),
  transferId: UuidSchema.describe(
    "The transfer's `transferId` (a UUID); one of another tenant is not found here",
  ),
});

export const MyTransferIdParams = z.object({
  transferId: UuidSchema.describe(
    "The transfer's `transferId` (a UUID); one naming somebody else is not found",
  ),
});
