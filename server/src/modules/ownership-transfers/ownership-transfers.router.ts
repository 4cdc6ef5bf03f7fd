import { contract } from '@tms/contract';
import { read, routes, tenantWrite, write } from '../../pipeline/handlers.js';
import { toOwnershipTransferDto } from './ownership-transfers.dto.js';
import {
  answerTransfer,
  cancelTransfer,
  createTransfer,
  getTransfer,
  listMyNominations,
} from './ownership-transfers.service.js';

/**
 * The tenant's side (create, get, cancel) runs as every tenant route does: reads decide on the
 * caller read with their data, writes in the transaction that holds the tenant's lock. The
 * nominee's side (/me) names no tenant: its answers open a transaction of their own, which locks
 * the transfer's tenant.
 */
export const ownershipTransfersRoutes = routes(contract.ownershipTransfers, {
  create: tenantWrite(async (change, { body }) => ({
    status: 201,
    data: toOwnershipTransferDto(await createTransfer(change, body)),
  })),
  get: read(async ({ db, requester }, { params }) => ({
    status: 200,
    data: toOwnershipTransferDto(await getTransfer(db, requester, params.transferId)),
  })),
  cancel: tenantWrite(async (change, { params }) => ({
    status: 200,
    data: toOwnershipTransferDto(await cancelTransfer(change, params.transferId)),
  })),
  listMine: read(async ({ db, requester }) => ({
    status: 200,
    data: (await listMyNominations(db, requester)).map(toOwnershipTransferDto),
  })),
  accept: write(async ({ db, audit, caller }, { params }) => ({
    status: 200,
    data: toOwnershipTransferDto(await answerTransfer(db, audit, caller, params.transferId, 'accept')),
  })),
  decline: write(async ({ db, audit, caller }, { params }) => ({
    status: 200,
    data: toOwnershipTransferDto(await answerTransfer(db, audit, caller, params.transferId, 'decline')),
  })),
});
