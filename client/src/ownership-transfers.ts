import type { CreateOwnershipTransferBody, OwnershipTransfer } from '@tms/contract';
import { type Send, unwrap } from './answers.js';
import type { CallOptions, CreateOptions } from './options.js';
import { routes } from './routes.js';

const r = routes.ownershipTransfers;

/**
 * Two-step ownership transfer. An OWNER offers the tenant to a member (`create`) and may withdraw
 * the offer (`cancel`); the nominee finds its offers (`listMine`) and answers them (`accept`,
 * `decline`). Each POST is sent with an idempotency key, so a retried answer is not answered twice.
 */
export const ownershipTransfersOf = (send: Send) => ({
  /** `expiresInDays`: 1 to 14, 3 when left out. */
  create: async (
    tenantId: string,
    body: CreateOwnershipTransferBody,
    options: CreateOptions = {},
  ): Promise<OwnershipTransfer> =>
    unwrap(await send({ route: r.create, params: { tenantId }, body, options })),
  get: async (tenantId: string, transferId: string, options: CallOptions = {}): Promise<OwnershipTransfer> =>
    unwrap(await send({ route: r.get, params: { tenantId, transferId }, options })),
  cancel: async (
    tenantId: string,
    transferId: string,
    options: CreateOptions = {},
  ): Promise<OwnershipTransfer> =>
    unwrap(await send({ route: r.cancel, params: { tenantId, transferId }, options })),
  /** The caller's pending nominations, at most one per tenant. */
  listMine: async (options: CallOptions = {}): Promise<OwnershipTransfer[]> =>
    unwrap(await send({ route: r.listMine, params: {}, options })),
  /** Makes the caller OWNER and the initiator ADMIN; TRANSFER_NOT_APPLICABLE (and cancelled) if either changed since. */
  accept: async (transferId: string, options: CreateOptions = {}): Promise<OwnershipTransfer> =>
    unwrap(await send({ route: r.accept, params: { transferId }, options })),
  decline: async (transferId: string, options: CreateOptions = {}): Promise<OwnershipTransfer> =>
    unwrap(await send({ route: r.decline, params: { transferId }, options })),
});
