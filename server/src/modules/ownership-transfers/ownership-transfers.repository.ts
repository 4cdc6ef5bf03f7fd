import type { TransferStatus } from '@tms/contract';
import { and, asc, desc, eq, isNull, lte, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor, Transaction } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { ownershipTransfers, tenantMemberships, tenants } from '../../db/schema.js';
import { isActive } from '../../rules/membership-status.sql.js';

/** A transfer as the API shows it: `status` EXPIRED once a pending one is past `expiresAt`. */
export type TransferRecord = {
  id: string;
  tenantId: string;
  fromMembershipId: string;
  toMembershipId: string;
  status: TransferStatus;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
};

const t = ownershipTransfers;

/**
 * EXPIRED is written lazily (when the tenant's one pending slot is needed), so a read computes it:
 * a pending transfer past its time is expired whether or not anybody wrote so. `now()` is the
 * transaction's start, the same instant for every statement of a request.
 */
const shownStatus = sql<TransferStatus>`(case when ${t.status} = 'PENDING' and ${t.expiresAt} <= now() then 'EXPIRED'::ownership_transfer_status else ${t.status} end)`;

/** Pending, and not yet past its time: the only state a transfer can be answered or cancelled in. */
const isOpen: SQL = sql`(${t.status} = 'PENDING' and ${t.expiresAt} > now())`;

export const transferColumns = {
  id: t.id,
  tenantId: t.tenantId,
  fromMembershipId: t.fromMembershipId,
  toMembershipId: t.toMembershipId,
  status: shownStatus.as('status'),
  expiresAt: t.expiresAt,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
};

/** What a write's RETURNING gives, as the API shows it (a row just written is never expired). */
const returned = {
  id: t.id,
  tenantId: t.tenantId,
  fromMembershipId: t.fromMembershipId,
  toMembershipId: t.toMembershipId,
  status: t.status,
  expiresAt: t.expiresAt,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
};

const inTenant = (tenantId: string | Placeholder, transferId: string | Placeholder) =>
  and(eq(t.tenantId, tenantId), eq(t.id, transferId));

const transferWithCaller = preparedPer((db) =>
  selectWithCaller(db, { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') }, (gate) =>
    db
      .select(transferColumns)
      .from(t)
      .where(and(gate, inTenant(sql.placeholder('tenantId'), sql.placeholder('transferId'))))
      .limit(1),
  ).prepare('ownership_transfer_with_caller'),
);

/** The caller (with its role in the tenant) and the transfer, within the tenant, in one statement. */
export async function findTransferAs(
  db: Executor,
  subject: string,
  tenantId: string,
  transferId: string,
): Promise<CallerRead<TransferRecord>> {
  return callerReadOf(await transferWithCaller(db).execute({ subject, tenantId, transferId }));
}

const nominationsWithCaller = preparedPer((db) =>
  selectWithCaller(db, { rule: 'authenticated', orderBy: (item) => [asc(item.id as SQL)] }, (_gate, caller) =>
    db
      .select(transferColumns)
      .from(t)
      .innerJoin(
        tenantMemberships,
        and(eq(tenantMemberships.tenantId, t.tenantId), eq(tenantMemberships.id, t.toMembershipId)),
      )
      // A deleted tenant's transfers are gone with it, as far as anybody can tell.
      .innerJoin(tenants, and(eq(tenants.id, t.tenantId), isNull(tenants.deletedAt)))
      .where(and(eq(tenantMemberships.userId, caller.id), isOpen))
      .orderBy(asc(t.id)),
  ).prepare('ownership_transfers_nominating_caller'),
);

/** The caller and the open transfers that name one of its memberships as the nominee, in one statement. */
export async function listNominationsAs(db: Executor, subject: string): Promise<CallerRead<TransferRecord>> {
  return callerReadOf(await nominationsWithCaller(db).execute({ subject }));
}

/**
 * Writes the tenant's pending transfer that is past its time as EXPIRED, so that it gives up the
 * one pending slot (the partial unique index `ownership_transfers_pending_key`).
 */
export async function expireStaleTransfer(tx: Transaction, tenantId: string): Promise<void> {
  await tx
    .update(t)
    .set({ status: 'EXPIRED', updatedAt: sql`now()` })
    .where(and(eq(t.tenantId, tenantId), eq(t.status, 'PENDING'), lte(t.expiresAt, sql`now()`)));
}

/**
 * The OWNER membership a transfer is offered from: the caller's own when it is an ACTIVE OWNER of
 * the tenant, otherwise (a super administrator's) the tenant's oldest ACTIVE OWNER.
 */
export async function findInitiator(
  tx: Transaction,
  tenantId: string,
  callerUserId: string,
): Promise<{ id: string } | undefined> {
  const [row] = await tx
    .select({ id: tenantMemberships.id })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.role, 'OWNER'), isActive()))
    .orderBy(desc(sql`${tenantMemberships.userId} = ${callerUserId}`), asc(tenantMemberships.id))
    .limit(1);
  return row;
}

/** The membership named as nominee, within the tenant (the scope rule), with whether it is ACTIVE. */
export async function findNominee(tx: Transaction, tenantId: string, membershipId: string) {
  const [row] = await tx
    .select({ id: tenantMemberships.id, role: tenantMemberships.role, active: isActive() })
    .from(tenantMemberships)
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.id, membershipId)));
  return row;
}

/**
 * The new pending transfer, or undefined when the tenant already has one. ON CONFLICT on the
 * partial unique index, rather than a read first: the index decides, in the database, even for a
 * writer that did not hold the tenant's lock.
 */
export async function insertPendingTransfer(
  tx: Transaction,
  transfer: { tenantId: string; fromMembershipId: string; toMembershipId: string; expiresInDays: number },
): Promise<TransferRecord | undefined> {
  const { expiresInDays, ...row } = transfer;
  const [inserted] = await tx
    .insert(t)
    .values({ id: uuidv7(), ...row, expiresAt: sql`now() + ${expiresInDays}::int * interval '1 day'` })
    .onConflictDoNothing({ target: t.tenantId, where: sql`${t.status} = 'PENDING'` })
    .returning(returned);
  return inserted;
}

/** Moves an open transfer to `status`; undefined when it is not open (or not in this tenant). */
export async function closeOpenTransfer(
  tx: Transaction,
  tenantId: string,
  transferId: string,
  status: Exclude<TransferStatus, 'PENDING' | 'EXPIRED'>,
): Promise<TransferRecord | undefined> {
  const [row] = await tx
    .update(t)
    .set({ status, updatedAt: sql`now()` })
    .where(and(inTenant(tenantId, transferId), isOpen))
    .returning(returned);
  return row;
}

/** The transfer within the tenant, as shown, read in the writer's transaction. */
export async function findTransferIn(
  tx: Transaction,
  tenantId: string,
  transferId: string,
): Promise<TransferRecord | undefined> {
  const [row] = await tx.select(transferColumns).from(t).where(inTenant(tenantId, transferId));
  return row;
}
