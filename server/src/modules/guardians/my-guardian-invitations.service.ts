import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import type { GuardianLinkRow } from '../../db/schema.js';
import { GuardianInvitationNotFoundError, StudentNotFoundError } from '../../errors/index.js';
import type { AuditContext } from '../audit/audit-context.js';
import { answerAsInvitee, type InviteeReads } from '../shared/invitee-answer.js';
import { recordGuardianInvitationEvent } from './guardian-events.js';
import {
  listMyGuardianInvitationsAs,
  type MyGuardianInvitationView,
} from './guardian-invitation-reads.repository.js';
import {
  answerGuardianInvitation,
  findGuardianInvitationInTenant,
  type GuardianInvitationView,
  tenantOfGuardianInvitation,
} from './guardian-invitations.repository.js';
import { isStudentOf } from './guardian-links.repository.js';
import { linkGuardian } from './link-guardian.js';

/** The pending guardian invitations addressed to the caller's verified email, read with the caller. */
export async function listMyGuardianInvitations(
  db: Database,
  requester: Requester,
): Promise<MyGuardianInvitationView[]> {
  const { items } = await readAsCaller(db, requester, (subject) => listMyGuardianInvitationsAs(db, subject));
  return items;
}

const GUARDIAN_INVITATIONS: InviteeReads<GuardianInvitationView> = {
  tenantOf: tenantOfGuardianInvitation,
  find: findGuardianInvitationInTenant,
  notFound: (id) => new GuardianInvitationNotFoundError(id),
};

/**
 * The caller becomes an ACTIVE guardian of the invitation's student (as a redeemed pairing code
 * makes one: link-guardian.ts), with the relationship the school wrote; the invitation is ACCEPTED.
 * A student whose STUDENT membership is gone by now (their role changed) is STUDENT_NOT_FOUND.
 */
export async function acceptGuardianInvitation(
  db: Database,
  audit: AuditContext,
  guardianInvitationId: string,
): Promise<GuardianLinkRow> {
  return answerAsInvitee(
    db,
    audit,
    guardianInvitationId,
    GUARDIAN_INVITATIONS,
    async (tx, invitation, invitee) => {
      const { tenantId, studentUserId } = invitation;
      if (!(await isStudentOf(tx, tenantId, studentUserId))) throw new StudentNotFoundError(studentUserId);
      const link = await linkGuardian(
        tx,
        audit,
        { tenantId, studentUserId, guardianUserId: invitee.id },
        {
          relationship: invitation.relationship,
          source: invitation.source === 'ROSTER' ? 'ROSTER' : 'INVITATION',
        },
      );
      const accepted = await answerGuardianInvitation(tx, tenantId, invitation.id, {
        status: 'ACCEPTED',
        guardianUserId: invitee.id,
      });
      await recordGuardianInvitationEvent(tx, audit, 'guardian_invitation.accepted', invitation, accepted);
      return link;
    },
  );
}

export async function declineGuardianInvitation(
  db: Database,
  audit: AuditContext,
  guardianInvitationId: string,
): Promise<GuardianInvitationView> {
  return answerAsInvitee(db, audit, guardianInvitationId, GUARDIAN_INVITATIONS, async (tx, invitation) => {
    const declined = await answerGuardianInvitation(tx, invitation.tenantId, invitation.id, {
      status: 'DECLINED',
    });
    await recordGuardianInvitationEvent(tx, audit, 'guardian_invitation.declined', invitation, declined);
    return declined;
  });
}
