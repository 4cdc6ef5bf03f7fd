import type { ErasedUser } from '@tms/contract';
import type { Database, Transaction } from '../../db/database.js';
import type { UserRow } from '../../db/schema.js';
import { UserNotFoundError } from '../../errors/index.js';
import { lastActiveOwnerProblem } from '../../rules/membership-rules.js';
import { refuse } from '../../rules/problems.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { removeGuardianLinksOf } from '../guardians/guardian-erasure.js';
import { answerInvitation, findInvitationInTenant } from '../invitations/invitation-changes.repository.js';
import { recordInvitationEvent } from '../invitations/invitation-events.js';
import { deleteReturningBefore } from '../memberships/membership-changes.repository.js';
import { recordMembershipEvent } from '../memberships/membership-events.js';
import { toOwnershipTransferDto } from '../ownership-transfers/ownership-transfers.dto.js';
import { closeOpenTransfer, findTransferIn } from '../ownership-transfers/ownership-transfers.repository.js';
import { findUserById } from '../users/users.repository.js';
import {
  deleteIdempotencyKeysOf,
  deleteRateLimitHitsOf,
  invitationsOfPerson,
  lockTenantsOfPerson,
  lockUser,
  membershipsOfUser,
  openTransfersNaming,
  ownerSeatsOf,
  pseudonymiseInvitations,
  pseudonymiseUser,
} from './erasure.repository.js';
import {
  guardianInvitationsOfPerson,
  pseudonymiseGuardianInvitations,
  revokeGuardianInvitationsOf,
} from './erasure-guardians.js';
import { cancelOpenJoinRequests, forgetDomainJoinsOf, liftJoinBlocksOf } from './erasure-joining.js';
import { rewritePersonsData } from './erasure-rewrite.js';
import { personsRecordsInTrail } from './erasure-trail.repository.js';
import { type ErasedPerson, pseudonymOf } from './pseudonym.js';

/**
 * Erases a user for privacy (DELETE /admin/users/:userId), in one transaction, so that a failure
 * leaves nothing half erased: their memberships removed, their open invitations revoked and
 * transfers cancelled, their pending join requests cancelled and join blocks lifted (each with its event, which shows the pseudonym already), their record and
 * invitations pseudonymised, then every stored copy of their data rewritten (the audit trail, the
 * answers kept for idempotent replay), and the erasure itself recorded as `user.erased`.
 *
 * The user's row and id stay: the trail's events keep `actor.userId` and the memberships' `userId`,
 * an opaque id that no longer leads to a person, so that the history still says that one person
 * (whoever it was) did these things.
 */
export async function eraseUser(db: Database, audit: AuditContext, userId: string): Promise<ErasedUser> {
  return db.transaction(async (tx) => {
    const user = await lockPerson(tx, userId);
    // The tenant must keep someone to administer it: hand it over first. Its lock is held, so no
    // demotion or removal of its other OWNERs can slip in before this commits.
    const owner = { role: 'OWNER', status: 'ACTIVE' } as const;
    refuse(
      ...(await ownerSeatsOf(tx, userId)).map((seat) =>
        lastActiveOwnerProblem(owner, undefined, seat.activeOwners),
      ),
    );
    // Someone erasing themselves: their subject must not come back in the erasure's own events.
    const context =
      audit.actor.userId === userId ? { ...audit, actor: { ...audit.actor, subject: null } } : audit;
    const pseudonym = pseudonymOf(userId);
    const person = await erasedPersonOf(tx, user);

    await pseudonymiseUser(tx, userId, pseudonym);
    if (user.isSuperAdmin) await recordSuperAdminRevoked(tx, context, userId);
    await pseudonymiseInvitations(tx, [...person.invitationIds], pseudonym);
    await pseudonymiseGuardianInvitations(tx, person.guardianInvitationIds, pseudonym);
    const invitationsRevoked = await revokeOpenInvitations(tx, context, person.openInvitations);
    const transfersCancelled = await cancelOpenTransfers(tx, context, userId);
    await removeGuardianLinksOf(tx, context, userId);
    await revokeGuardianInvitationsOf(tx, context, userId, person.guardianInvitationIds);
    const membershipsRemoved = await removeMemberships(tx, context, userId);
    await cancelOpenJoinRequests(tx, context, userId);
    await liftJoinBlocksOf(tx, context, userId);
    await forgetDomainJoinsOf(tx, userId);

    await deleteIdempotencyKeysOf(tx, userId);
    if (user.subject !== null) await deleteRateLimitHitsOf(tx, user.subject);
    await rewritePersonsData(tx, person, pseudonym);

    const erased: ErasedUser = {
      userId,
      pseudonym: pseudonym.name,
      membershipsRemoved,
      invitationsRevoked,
      transfersCancelled,
    };
    await recordAuditEvent(tx, {
      tenantId: null,
      action: 'user.erased',
      target: { type: 'user', id: userId },
      before: null,
      after: erased,
      context,
    });
    return erased;
  });
}

/**
 * The user, locked, after the tenants the erasure changes (in the order every writer of several
 * tenants takes them; a membership writer holds its tenant's lock before it touches the user's
 * row, so taking the user first could deadlock with it). Once the user's row is locked no
 * membership can be made for it; the tenants are locked again for those committed meanwhile.
 * Unknown, or already erased: USER_NOT_FOUND.
 */
async function lockPerson(tx: Transaction, userId: string): Promise<UserRow> {
  const seen = await findUserById(tx, userId);
  if (!seen || seen.erasedAt !== null) throw new UserNotFoundError(userId);
  await lockTenantsOfPerson(tx, userId, seen.emailCanonical);
  const user = await lockUser(tx, userId);
  if (!user || user.erasedAt !== null) throw new UserNotFoundError(userId);
  await lockTenantsOfPerson(tx, userId, user.emailCanonical);
  return user;
}

type Person = ErasedPerson & {
  openInvitations: { id: string; tenantId: string }[];
  /** The guardian invitations addressed to the person or accepted by them (also in `invitationIds`). */
  guardianInvitationIds: string[];
};

/** Everything that was the person's, read before anything changes: what the rewrite will look for. */
async function erasedPersonOf(tx: Transaction, user: UserRow): Promise<Person> {
  const memberships = await membershipsOfUser(tx, user.id);
  const invitations = await invitationsOfPerson(tx, user.id, user.emailCanonical);
  const inTrail = await personsRecordsInTrail(tx, user.id);
  const guardianInvitationIds = await guardianInvitationsOfPerson(tx, user.id, user.emailCanonical);
  const names = [
    user.displayName,
    ...memberships.map((m) => m.invitedDisplayName),
    ...invitations.map((i) => i.displayName),
  ];
  const canonicalEmails = [user.emailCanonical, ...invitations.map((i) => i.emailCanonical)];
  return {
    userId: user.id,
    canonicalEmail: user.emailCanonical,
    membershipIds: new Set([...memberships.map((m) => m.id), ...inTrail.membershipIds]),
    invitationIds: new Set([
      ...invitations.map((i) => i.id),
      ...inTrail.invitationIds,
      ...guardianInvitationIds,
    ]),
    canonicalEmails: new Set(canonicalEmails.filter((email): email is string => email !== null)),
    names: [...new Set(names.filter((name): name is string => name !== null))],
    openInvitations: invitations.filter((i) => i.open).map(({ id, tenantId }) => ({ id, tenantId })),
    guardianInvitationIds,
  };
}

/** A super administrator erased is one no longer: the flag goes, with its event (no subject in it). */
function recordSuperAdminRevoked(tx: Transaction, context: AuditContext, userId: string): Promise<void> {
  return recordAuditEvent(tx, {
    tenantId: null,
    action: 'super_admin.revoked',
    target: { type: 'user', id: userId },
    before: { userId, subject: null, isSuperAdmin: true },
    after: { userId, subject: null, isSuperAdmin: false },
    context,
  });
}

/** Nobody can accept them any more: revoked, as a tenant admin would, each with its event. */
async function revokeOpenInvitations(
  tx: Transaction,
  context: AuditContext,
  open: { id: string; tenantId: string }[],
): Promise<number> {
  for (const { id, tenantId } of open) {
    const before = await findInvitationInTenant(tx, tenantId, id);
    if (!before) throw new Error(`invitation ${id} vanished under its tenant's lock`);
    const after = await answerInvitation(tx, tenantId, id, { status: 'REVOKED' });
    await recordInvitationEvent(tx, context, 'invitation.revoked', before, after);
  }
  return open.length;
}

/** A transfer to or from the person can no longer happen: cancelled, as an OWNER would. */
async function cancelOpenTransfers(tx: Transaction, context: AuditContext, userId: string): Promise<number> {
  const open = await openTransfersNaming(tx, userId);
  for (const { id, tenantId } of open) {
    const before = await findTransferIn(tx, tenantId, id);
    const after = await closeOpenTransfer(tx, tenantId, id, 'CANCELLED');
    if (!before || !after) throw new Error(`ownership transfer ${id} closed under its tenant's lock`);
    await recordAuditEvent(tx, {
      tenantId,
      action: 'ownership_transfer.cancelled',
      target: { type: 'ownership_transfer', id },
      before: toOwnershipTransferDto(before),
      after: toOwnershipTransferDto(after),
      context,
    });
  }
  return open.length;
}

/**
 * Every membership goes, deleted tenants' too, each with `membership.removed` showing it as the API
 * showed it: with the pseudonym, since the user's record already carries it.
 */
async function removeMemberships(tx: Transaction, context: AuditContext, userId: string): Promise<number> {
  const memberships = await membershipsOfUser(tx, userId);
  for (const { id, tenantId } of memberships) {
    const before = await deleteReturningBefore(tx, tenantId, id);
    if (!before) throw new Error(`membership ${id} vanished under its tenant's lock`);
    await recordMembershipEvent(tx, context, 'membership.removed', before, null);
  }
  return memberships.length;
}
