import type { Role } from '@tms/contract';
import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Transaction } from '../../db/database.js';
import { ownershipTransfers, tenantMemberships, tenants, users } from '../../db/schema.js';
import { isActive, statusOf } from '../../rules/membership-status.sql.js';
import {
  type MembershipWithUser,
  membershipColumns,
  withUser,
} from '../memberships/memberships.repository.js';
import { type TransferRecord, transferColumns } from './ownership-transfers.repository.js';

/*
 * The nominee's answers (/me/ownership-transfers/...) name no tenant in their URL: the transfer
 * says which. They lock that tenant's row first, as every membership write of the tenant does, so
 * that what they check (the roles of the two memberships, the transfer's state) stays true until
 * they commit, whichever process the competing writer reached.
 */

/**
 * Locks the row of the transfer's tenant, in one statement that finds it; undefined when there is
 * no such transfer or its tenant is deleted (a deleted tenant's transfer is not found).
 */
export async function lockTenantOfTransfer(tx: Transaction, transferId: string): Promise<string | undefined> {
  const tenantOfTransfer = tx
    .select({ tenantId: ownershipTransfers.tenantId })
    .from(ownershipTransfers)
    .where(eq(ownershipTransfers.id, transferId));
  const [row] = await tx
    .select({ id: tenants.id })
    .from(tenants)
    .where(and(inArray(tenants.id, tenantOfTransfer), isNull(tenants.deletedAt)))
    .for('update');
  return row?.id;
}

/** The transfer with the two memberships it names, as they are now: what an answer is checked on. */
export type TransferWithParties = TransferRecord & {
  nomineeUserId: string | null;
  nomineeRole: Role | null;
  nomineeActive: boolean;
  initiatorRole: Role | null;
  initiatorActive: boolean;
};

const nominee = alias(tenantMemberships, 'nominee');
const initiator = alias(tenantMemberships, 'initiator');
type Memberships = typeof tenantMemberships;

/** ACTIVE, and there at all (a left join's missing row would otherwise read as active). */
const activeRow = (m: typeof nominee | typeof initiator): SQL<boolean> =>
  sql<boolean>`(${m.id} is not null and ${isActive(m as unknown as Memberships)})`;

/** Read after the tenant's lock, so it sees every membership write committed before it. */
export async function findTransferWithParties(
  tx: Transaction,
  tenantId: string,
  transferId: string,
): Promise<TransferWithParties | undefined> {
  const [row] = await tx
    .select({
      ...transferColumns,
      nomineeUserId: nominee.userId,
      nomineeRole: nominee.role,
      nomineeActive: activeRow(nominee),
      initiatorRole: initiator.role,
      initiatorActive: activeRow(initiator),
    })
    .from(ownershipTransfers)
    .leftJoin(
      nominee,
      and(
        eq(nominee.tenantId, ownershipTransfers.tenantId),
        eq(nominee.id, ownershipTransfers.toMembershipId),
      ),
    )
    .leftJoin(
      initiator,
      and(
        eq(initiator.tenantId, ownershipTransfers.tenantId),
        eq(initiator.id, ownershipTransfers.fromMembershipId),
      ),
    )
    .where(and(eq(ownershipTransfers.tenantId, tenantId), eq(ownershipTransfers.id, transferId)));
  return row;
}

/**
 * The nominee becomes OWNER and the initiator ADMIN, in one statement; each membership's version
 * grows by one, as a PATCH of its role would make it.
 */
export async function swapOwnership(
  tx: Transaction,
  tenantId: string,
  parties: { fromMembershipId: string; toMembershipId: string },
): Promise<{ before: MembershipWithUser[]; after: MembershipWithUser[] }> {
  const m = tenantMemberships;
  const ids = [parties.fromMembershipId, parties.toMembershipId];
  // Read first, for the audit events: the two memberships as they were, with their people.
  const before = await tx
    .select(withUser)
    .from(m)
    .innerJoin(users, eq(users.id, m.userId))
    .where(and(eq(m.tenantId, tenantId), inArray(m.id, ids)));
  const changed = await tx
    .update(m)
    .set({
      role: sql`(case when ${m.id} = ${parties.toMembershipId} then 'OWNER' else 'ADMIN' end)::membership_role`,
      // OWNERs carry no term dates: the nominee, ACTIVE now, becomes an open-ended OWNER (an end
      // date kept would take the tenant's only OWNER away when it passed).
      startsAt: sql`(case when ${m.id} = ${parties.toMembershipId} then null else ${m.startsAt} end)`,
      endsAt: sql`(case when ${m.id} = ${parties.toMembershipId} then null else ${m.endsAt} end)`,
      version: sql`${m.version} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(m.tenantId, tenantId), inArray(m.id, ids)))
    .returning({ ...membershipColumns, status: statusOf().as('new_status') });
  const after = changed.map((row) => {
    const was = before.find((membership) => membership.id === row.id);
    if (!was) throw new Error(`membership ${row.id} changed without being read under the tenant's lock`);
    return { ...row, user: was.user };
  });
  return { before, after };
}
