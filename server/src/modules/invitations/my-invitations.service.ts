import type { CallerRow } from '../../access/caller-read.repository.js';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Transaction } from '../../db/database.js';
import { InvitationNotFoundError, MembershipAlreadyExistsError } from '../../errors/index.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordMembershipEvent } from '../memberships/membership-events.js';
import type { MembershipWithUser } from '../memberships/memberships.repository.js';
import { answerAsInvitee, type InviteeReads } from '../shared/invitee-answer.js';
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

const MEMBERSHIP_INVITATIONS: InviteeReads<InvitationView> = {
  tenantOf: tenantOfInvitation,
  find: findInvitationInTenant,
  notFound: (id) => new InvitationNotFoundError(id),
};

/** The invitee's answer, under the invitation's tenant lock (modules/shared/invitee-answer.ts). */
function answering<T>(
  db: Database,
  audit: AuditContext,
  invitationId: string,
  answer: (tx: Transaction, invitation: InvitationView, invitee: CallerRow) => Promise<T>,
): Promise<T> {
  return answerAsInvitee(db, audit, invitationId, MEMBERSHIP_INVITATIONS, answer);
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
