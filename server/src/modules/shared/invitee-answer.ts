import type { InvitationStatus } from '@tms/contract';
import { lockTenantForWrite } from '../../access/access.repository.js';
import type { CallerRow } from '../../access/caller-read.repository.js';
import type { Database, Transaction } from '../../db/database.js';
import { type AppError, InvitationExpiredError, InvitationNotPendingError } from '../../errors/index.js';
import type { AuditContext } from '../audit/audit-context.js';

/** How an invitation of one kind (to membership, to be a guardian) is found by its invitee. */
export type InviteeReads<V> = {
  /** Which tenant's lock the answer must take; an invitation's tenant never changes. */
  tenantOf: (tx: Transaction, id: string) => Promise<string | undefined>;
  /** The invitation within its tenant, with its status as shown (EXPIRED past `expiresAt`). */
  find: (tx: Transaction, tenantId: string, id: string) => Promise<V | undefined>;
  notFound: (id: string) => AppError;
};

/**
 * The invitee's answer, in a transaction of its own that first locks the invitation's tenant row,
 * as every writer of the tenant does (lockTenantForWrite): an accept and a revoke then run one
 * after the other, and the second sees what the first committed. Exactly one of them wins.
 *
 * An invitation is the invitee's only if it is addressed to the canonical form of the email their
 * identity provider verified (the only one the user record keeps, see docs/identity.md). Anyone
 * else's, or one of a deleted tenant, is not found: an id does not tell who was invited where.
 */
export async function answerAsInvitee<V extends { emailCanonical: string; status: InvitationStatus }, T>(
  db: Database,
  audit: AuditContext,
  id: string,
  reads: InviteeReads<V>,
  answer: (tx: Transaction, invitation: V, invitee: CallerRow) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    const tenantId = await reads.tenantOf(tx, id);
    if (tenantId === undefined) throw reads.notFound(id);
    const subject = audit.actor.subject;
    if (subject === null) throw new Error('an invitation answered by nobody');
    const { user, tenant } = await lockTenantForWrite(tx, tenantId, subject);
    if (!tenant.exists || !user?.emailCanonical) throw reads.notFound(id);
    const invitation = await reads.find(tx, tenantId, id);
    if (invitation?.emailCanonical !== user.emailCanonical) throw reads.notFound(id);
    if (invitation.status === 'EXPIRED') throw new InvitationExpiredError();
    if (invitation.status !== 'PENDING') throw new InvitationNotPendingError(invitation.status);
    return answer(tx, invitation, user);
  });
}
