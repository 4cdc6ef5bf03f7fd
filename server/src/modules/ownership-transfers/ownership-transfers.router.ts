import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import {
  auditContextOf,
  callerOf,
  requesterOf,
  tenantAccessOf,
  transactionOf,
} from '../../routing/request-context.js';
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
export const ownershipTransfersRouter = (db: Database) =>
  enveloped(contract.ownershipTransfers, {
    create: async ({ req, body }) => ({
      status: 201,
      data: toOwnershipTransferDto(
        await createTransfer(
          transactionOf(req),
          tenantAccessOf(req),
          auditContextOf(req),
          callerOf(req),
          body,
        ),
      ),
    }),
    get: async ({ req, params }) => ({
      status: 200,
      data: toOwnershipTransferDto(await getTransfer(db, requesterOf(req), params.transferId)),
    }),
    cancel: async ({ req, params }) => ({
      status: 200,
      data: toOwnershipTransferDto(
        await cancelTransfer(transactionOf(req), tenantAccessOf(req), auditContextOf(req), params.transferId),
      ),
    }),
    listMine: async ({ req }) => ({
      status: 200,
      data: (await listMyNominations(db, requesterOf(req))).map(toOwnershipTransferDto),
    }),
    accept: async ({ req, params }) => ({
      status: 200,
      data: toOwnershipTransferDto(
        await answerTransfer(db, auditContextOf(req), callerOf(req), params.transferId, 'accept'),
      ),
    }),
    decline: async ({ req, params }) => ({
      status: 200,
      data: toOwnershipTransferDto(
        await answerTransfer(db, auditContextOf(req), callerOf(req), params.transferId, 'decline'),
      ),
    }),
  });
