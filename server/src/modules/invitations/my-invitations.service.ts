import { lockTenantForWrite } from '../../access/access.repository.js';
import type { CallerRow } from '../../access/caller-read.repository.js';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Transaction } from '../../db/database.js';
import {
  InvitationExpiredError,
  InvitationNotFoundError,
  InvitationNotPendingError,
  MembershipAlreadyExistsError,
} from '../../errors/index.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordMembershipEvent } from '../memberships/membership-events.js';
import type { MembershipWithUser } from '../memberships/memberships.repository.js';
import {
  answerInvitation,
  findInvitationInTenant,
  insertInvitedMembership,
  tenantOfInvitation,
} from './invitation-changes.repository.js';
import { recordInvitationEvent } from './invitation-events.js';
import { type InvitationView, listMyInvitationsAs, type MyInvitationView } from './invitations.repository.js';

/** The pending invitations addressed to the caller's verified email, read with the caller. */
export async function listMyInvitations(db: Database, requester: Requester): Promise<MyInvitationView[]> {
  const { items } = await readAsCaller(db, requester, (subject) => listMyInvitationsAs(db, subject));
  return items;
}

/**
 * The invitee's answer, in a transaction of its own that first locks the invitation's tenant row,
 * as every membership writer of the tenant does (lockTenantForWrite): an accept and a revoke, or an
 * accept and a membership change, then run one after the other, and the second sees what the
 * first committed. Exactly one of an accept and a revoke wins.
 *
 * An invitation is the invitee's only if it is addressed to the canonical form of the email their
 * identity provider verified (the only one the user record keeps, see docs/identity.md). Anyone
 * else's, or one of a deleted tenant, is not found: an id does not tell who was invited where.
 */
async function answering<T>(
  db: Database,
  audit: AuditContext,
  invitationId: string,
  answer: (tx: Transaction, invitation: InvitationView, invitee: CallerRow) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    const tenantId = await tenantOfInvitation(tx, invitationId);
    if (tenantId === undefined) throw new InvitationNotFoundError(invitationId);
    const subject = audit.actor.subject;
    if (subject === null) throw new Error('an invitation answered by nobody');
    const { user, tenant } = await lockTenantForWrite(tx, tenantId, subject);
    if (!tenant.exists || !user?.emailCanonical) throw new InvitationNotFoundError(invitationId);
    const invitation = await findInvitationInTenant(tx, tenantId, invitationId);
    if (invitation?.emailCanonical !== user.emailCanonical) throw new InvitationNotFoundError(invitationId);
    if (invitation.status === 'EXPIRED') throw new InvitationExpiredError();
    if (invitation.status !== 'PENDING') throw new InvitationNotPendingError(invitation.status);
    return answer(tx, invitation, user);
  });
}

/** The caller becomes a member with the invitation's role; the invitation is ACCEPTED. */
export async function acceptInvitation(
  db: Database,
  audit: AuditContext,
  invitationId: string,
): Promise<MembershipWithUser> {
  return answering(db, audit, invitationId, async (tx, invitation, invitee) => {
    const added = await insertInvitedMembership(tx, {
      tenantId: invitation.tenantId,
      userId: invitee.id,
      role: invitation.role,
      // As when adding by email: the inviter's name for the person labels the membership only
      // while the person has no name of their own, and then only in this tenant.
      invitedDisplayName: invitee.displayName === null ? invitation.displayName : null,
    });
    // Any membership, whatever its status: a suspended member is reactivated, not re-invited.
    if (!added) throw new MembershipAlreadyExistsError();
    const accepted = await answerInvitation(tx, invitation.tenantId, invitation.id, {
      status: 'ACCEPTED',
      acceptedUserId: invitee.id,
    });
    const membership = { ...added, user: { email: invitee.email, displayName: invitee.displayName } };
    await recordInvitationEvent(tx, audit, 'invitation.accepted', invitation, accepted);
    await recordMembershipEvent(tx, audit, 'membership.created', null, membership);
    return membership;
  });
}

export async function declineInvitation(
  db: Database,
  audit: AuditContext,
  invitationId: string,
): Promise<InvitationView> {
  return answering(db, audit, invitationId, async (tx, invitation) => {
    const declined = await answerInvitation(tx, invitation.tenantId, invitation.id, { status: 'DECLINED' });
    await recordInvitationEvent(tx, audit, 'invitation.declined', invitation, declined);
    return declined;
  });
}
