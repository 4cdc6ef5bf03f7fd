import { type AuditAction, type CreateOwnershipTransferBody, TRANSFER_EXPIRY_DAYS } from '@tms/contract';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Transaction } from '../../db/database.js';
import {
  MembershipNotFoundError,
  TransferAlreadyPendingError,
  TransferNotApplicableError,
  TransferNotFoundError,
  TransferNotPendingError,
} from '../../errors/index.js';
import type { Caller } from '../../identity/caller.js';
import { ownerOnlyProblem } from '../../rules/membership-rules.js';
import { refuse } from '../../rules/problems.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { recordMembershipEvent } from '../memberships/membership-events.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import {
  findTransferWithParties,
  lockTenantOfTransfer,
  swapOwnership,
  type TransferWithParties,
} from './nominee-answers.repository.js';
import { toOwnershipTransferDto } from './ownership-transfers.dto.js';
import {
  closeOpenTransfer,
  expireStaleTransfer,
  findInitiator,
  findNominee,
  findTransferAs,
  findTransferIn,
  insertPendingTransfer,
  listNominationsAs,
  type TransferRecord,
} from './ownership-transfers.repository.js';

const tenantIdOf = (requester: Requester): string => {
  if (requester.tenantId === undefined) throw new Error('an ownership transfer route without a tenant');
  return requester.tenantId;
};

/** The transfer, within the tenant (the scope rule), or TRANSFER_NOT_FOUND. */
export async function getTransfer(
  db: Database,
  requester: Requester,
  transferId: string,
): Promise<TransferRecord> {
  const tenantId = tenantIdOf(requester);
  const { items } = await readAsCaller(db, requester, (subject) =>
    findTransferAs(db, subject, tenantId, transferId),
  );
  const [transfer] = items;
  if (!transfer) throw new TransferNotFoundError(transferId);
  return transfer;
}

/** The open transfers naming the caller as nominee: how an app finds what there is to accept. */
export async function listMyNominations(db: Database, requester: Requester): Promise<TransferRecord[]> {
  const { items } = await readAsCaller(db, requester, (subject) => listNominationsAs(db, subject));
  return items;
}

/**
 * Tenant writes take the transaction their access was decided in: the tenant's row is locked, so
 * the roles and the pending transfer read here cannot change before commit (see lockTenantForWrite).
 */
export async function createTransfer(
  { tx, access, audit, caller }: TenantWrite,
  body: CreateOwnershipTransferBody,
): Promise<TransferRecord> {
  refuse(ownerOnlyProblem(access.level, 'ownershipTransfer'));
  const { tenantId } = access;
  // A pending transfer past its time must not hold the tenant's one pending slot.
  await expireStaleTransfer(tx, tenantId);
  const from = await findInitiator(tx, tenantId, caller.userId);
  // Only a super administrator can get here without being an ACTIVE OWNER; a tenant whose owners
  // are all suspended or ended has nobody to hand it over.
  if (!from) throw new TransferNotApplicableError('The tenant has no ACTIVE OWNER to transfer from');
  const to = await findNominee(tx, tenantId, body.toMembershipId);
  if (!to) throw new MembershipNotFoundError(body.toMembershipId);
  if (to.role === 'OWNER') throw new TransferNotApplicableError('The nominee is already an OWNER');
  if (!to.active) throw new TransferNotApplicableError('The nominee is not an ACTIVE member');
  const created = await insertPendingTransfer(tx, {
    tenantId,
    fromMembershipId: from.id,
    toMembershipId: to.id,
    expiresInDays: body.expiresInDays ?? TRANSFER_EXPIRY_DAYS.default,
  });
  if (!created) throw new TransferAlreadyPendingError();
  await recordTransferEvent(tx, audit, 'ownership_transfer.created', null, created);
  return created;
}

/** Any OWNER of the tenant (or a super administrator) may withdraw the offer, not only its initiator. */
export async function cancelTransfer(
  { tx, access, audit }: TenantWrite,
  transferId: string,
): Promise<TransferRecord> {
  refuse(ownerOnlyProblem(access.level, 'ownershipTransfer'));
  // Read first: the event's `before` (under the tenant's lock, so it is what the close changes).
  const before = await findTransferIn(tx, access.tenantId, transferId);
  if (!before) throw new TransferNotFoundError(transferId);
  const cancelled = await closeOpenTransfer(tx, access.tenantId, transferId, 'CANCELLED');
  if (!cancelled) throw new TransferNotPendingError(before.status);
  await recordTransferEvent(tx, audit, 'ownership_transfer.cancelled', before, cancelled);
  return cancelled;
}

/** A transfer's change, recorded in its transaction, as the API showed it before and shows it after. */
function recordTransferEvent(
  tx: Transaction,
  context: AuditContext,
  action: AuditAction,
  before: TransferRecord | null,
  after: TransferRecord,
): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: after.tenantId,
    action,
    target: { type: 'ownership_transfer', id: after.id },
    before: before && toOwnershipTransferDto(before),
    after: toOwnershipTransferDto(after),
    context,
  });
}

type Answer = 'accept' | 'decline';
type Outcome = { transfer: TransferRecord } | { refused: TransferNotApplicableError };

/**
 * The nominee's answer, in a transaction of its own that locks the transfer's tenant first. A
 * refused acceptance still cancels the transfer: that must commit, so the refusal is returned out
 * of the transaction and thrown only once it has committed (a throw inside would roll it back).
 */
export async function answerTransfer(
  db: Database,
  audit: AuditContext,
  caller: Caller,
  transferId: string,
  answer: Answer,
): Promise<TransferRecord> {
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    const tenantId = await lockTenantOfTransfer(tx, transferId);
    const transfer = tenantId && (await findTransferWithParties(tx, tenantId, transferId));
    // Somebody else's transfer is not found: a caller learns nothing of other people's offers.
    if (!transfer || transfer.nomineeUserId !== caller.userId) throw new TransferNotFoundError(transferId);
    if (transfer.status !== 'PENDING') throw new TransferNotPendingError(transfer.status);
    if (answer === 'decline') return { transfer: await close(tx, audit, transfer, 'DECLINED') };
    const refusal = whyNotApplicable(transfer);
    if (refusal) {
      await close(tx, audit, transfer, 'CANCELLED');
      return { refused: new TransferNotApplicableError(`${refusal}; the transfer is cancelled`) };
    }
    const swapped = await swapOwnership(tx, transfer.tenantId, transfer);
    for (const after of swapped.after) {
      const before = swapped.before.find((membership) => membership.id === after.id) ?? null;
      await recordMembershipEvent(tx, audit, 'membership.role_changed', before, after);
    }
    return { transfer: await close(tx, audit, transfer, 'ACCEPTED') };
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome.transfer;
}

/**
 * Whether the two memberships still are what the transfer was offered on. Either may have changed
 * since (demoted, suspended, ended, removed): ownership then goes nowhere, and no tenant is left
 * without an ACTIVE OWNER, since the initiator steps down only when the nominee steps up.
 */
function whyNotApplicable(transfer: TransferWithParties): string | undefined {
  if (transfer.nomineeRole === 'OWNER') return 'The nominee is already an OWNER';
  if (!transfer.nomineeActive) return 'The nominee is no longer an ACTIVE member';
  if (transfer.initiatorRole !== 'OWNER' || !transfer.initiatorActive)
    return 'The initiator is no longer an ACTIVE OWNER';
  return undefined;
}

const CLOSED_BY = {
  ACCEPTED: 'ownership_transfer.accepted',
  DECLINED: 'ownership_transfer.declined',
  CANCELLED: 'ownership_transfer.cancelled',
} as const;

async function close(
  tx: Transaction,
  audit: AuditContext,
  transfer: TransferRecord,
  status: 'ACCEPTED' | 'DECLINED' | 'CANCELLED',
): Promise<TransferRecord> {
  const closed = await closeOpenTransfer(tx, transfer.tenantId, transfer.id, status);
  // Checked open under the tenant's lock, which every writer of transfers takes.
  if (!closed) throw new Error(`ownership transfer ${transfer.id} closed under the tenant's lock`);
  await recordTransferEvent(tx, audit, CLOSED_BY[status], transfer, closed);
  return closed;
}
