import type { OwnershipTransfer } from '@tms/contract';
import type { TransferRecord } from './ownership-transfers.repository.js';

export const toOwnershipTransferDto = (row: TransferRecord): OwnershipTransfer => ({
  transferId: row.id,
  tenantId: row.tenantId,
  fromMembershipId: row.fromMembershipId,
  toMembershipId: row.toMembershipId,
  status: row.status,
  expiresAt: row.expiresAt.toISOString(),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
