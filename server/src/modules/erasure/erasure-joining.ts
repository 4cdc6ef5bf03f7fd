import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/database.js';
import { domainJoins, joinBlocks, joinRequests } from '../../db/schema.js';
import type { AuditContext } from '../audit/audit-context.js';
import { decideJoinRequest, findJoinRequestInTenant } from '../joining/join-requests.repository.js';
import { recordJoinRequestEvent, recordUnblockEvent } from '../joining/joining-events.js';

/*
 * The erasure's share of joining (issue 28). A join request holds no personal data of its own (it
 * shows the person through their user row, pseudonymised by then), but one left PENDING would ask
 * a tenant to admit nobody; a block would stop nobody. Both go, each with its event, under the
 * tenant locks the erasure took (erasure.repository.ts: lockTenantsOfPerson). The record of which
 * verified domains reached the person (domain_joins) goes too, without an event: it tells which
 * schools the person had an address at, and nobody signs in as this user again.
 */

/** The tenants whose join rows the erasure changes: of the person's pending requests and blocks. */
export const joiningTenantsOf = (tx: Transaction, userId: string) =>
  tx
    .select({ tenantId: joinRequests.tenantId })
    .from(joinRequests)
    .where(and(eq(joinRequests.userId, userId), eq(joinRequests.status, 'PENDING')))
    .union(
      tx.select({ tenantId: joinBlocks.tenantId }).from(joinBlocks).where(eq(joinBlocks.userId, userId)),
    );

/** The person's open join requests, cancelled as they would cancel them themselves. */
export async function cancelOpenJoinRequests(tx: Transaction, context: AuditContext, userId: string) {
  const open = await tx
    .select({ id: joinRequests.id, tenantId: joinRequests.tenantId })
    .from(joinRequests)
    .where(
      and(
        eq(joinRequests.userId, userId),
        eq(joinRequests.status, 'PENDING'),
        gt(joinRequests.expiresAt, sql`now()`),
      ),
    )
    .orderBy(asc(joinRequests.tenantId), asc(joinRequests.id));
  for (const { id, tenantId } of open) {
    const before = await findJoinRequestInTenant(tx, tenantId, id);
    await decideJoinRequest(tx, tenantId, id, { status: 'CANCELLED', decidedBy: null });
    const after = await findJoinRequestInTenant(tx, tenantId, id);
    if (!before || !after) throw new Error(`join request ${id} vanished under its tenant's lock`);
    await recordJoinRequestEvent(tx, context, 'join_request.cancelled', before, after);
  }
  return open.length;
}

/** Blocks of the person, lifted: they would stop nobody, since nobody signs in as this user again. */
export async function liftJoinBlocksOf(tx: Transaction, context: AuditContext, userId: string) {
  const lifted = await tx.delete(joinBlocks).where(eq(joinBlocks.userId, userId)).returning({
    tenantId: joinBlocks.tenantId,
    userId: joinBlocks.userId,
    joinRequestId: joinBlocks.joinRequestId,
    createdAt: joinBlocks.createdAt,
  });
  for (const block of lifted) await recordUnblockEvent(tx, context, block);
  return lifted.length;
}

/** Which tenants' verified domains reached the person: forgotten. */
export async function forgetDomainJoinsOf(tx: Transaction, userId: string): Promise<void> {
  await tx.delete(domainJoins).where(eq(domainJoins.userId, userId));
}
