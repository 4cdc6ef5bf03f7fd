import {
  type CreateGuardianInvitationBody,
  GUARDIAN_INVITATION_DAYS,
  type ListGuardianInvitationsQuery,
} from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import {
  GuardianInvitationAlreadyPendingError,
  GuardianInvitationNotFoundError,
  InvitationNotPendingError,
} from '../../errors/index.js';
import { emailIdentityOf } from '../../identity/email-address.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { guardianInvitationProblem } from '../../rules/guardian-rules.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { recordGuardianInvitationEvent } from './guardian-events.js';
import { listGuardianInvitationsAs } from './guardian-invitation-reads.repository.js';
import {
  answerGuardianInvitation,
  expireLapsedGuardianInvitation,
  findGuardianInvitationInTenant,
  type GuardianInvitationView,
  insertGuardianInvitation,
  inviteeFacts,
} from './guardian-invitations.repository.js';

/*
 * The school's side of guardian invitations. Changes take the transaction their access was
 * decided in (pipeline/tenant-transaction.ts): the tenant's row is locked, so every rule below is
 * checked on what the write commits against.
 */

/** A new PENDING invitation of the address to be the student's guardian, for 14 days. */
export async function createGuardianInvitation(
  { tx, access, audit, caller }: TenantWrite,
  studentUserId: string,
  body: CreateGuardianInvitationBody,
): Promise<GuardianInvitationView> {
  const email = emailIdentityOf(body.email, 'body.email');
  const { tenantId } = access;
  const facts = await inviteeFacts(tx, tenantId, studentUserId, email.canonical);
  const refused = guardianInvitationProblem({ studentUserId, canonical: email.canonical }, facts);
  if (refused) throw refused;
  await expireLapsedGuardianInvitation(tx, tenantId, studentUserId, email.canonical);
  const created = await insertGuardianInvitation(tx, {
    tenantId,
    studentUserId,
    email,
    relationship: body.relationship,
    days: GUARDIAN_INVITATION_DAYS,
    createdByUserId: caller.userId,
  });
  if (!created) throw new GuardianInvitationAlreadyPendingError();
  await recordGuardianInvitationEvent(tx, audit, 'guardian_invitation.created', null, created);
  return created;
}

/** A page of the tenant's guardian invitations in creation order, read with the caller in one statement. */
export async function listGuardianInvitationsPage(
  db: Database,
  requester: Requester,
  query: ListGuardianInvitationsQuery,
): Promise<{ access: TenantAccess; page: Page<GuardianInvitationView> }> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a guardian invitation route without a tenant');
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { access, items } = await readAsCaller(db, requester, (subject) =>
    listGuardianInvitationsAs(db, subject, {
      tenantId,
      ...(query.status && { status: query.status }),
      ...(query.studentUserId && { studentUserId: query.studentUserId }),
      ...(afterId !== undefined && { afterId }),
      limit: query.limit + 1,
    }),
  );
  if (!access) throw new Error('a tenant read without its access');
  return { access, page: toPage(items, query.limit) };
}

/** Withdraws a PENDING invitation; an answered or expired one has nothing left to withdraw. */
export async function revokeGuardianInvitation(
  { tx, access, audit }: TenantWrite,
  guardianInvitationId: string,
): Promise<GuardianInvitationView> {
  const invitation = await findGuardianInvitationInTenant(tx, access.tenantId, guardianInvitationId);
  if (!invitation) throw new GuardianInvitationNotFoundError(guardianInvitationId);
  if (invitation.status !== 'PENDING') throw new InvitationNotPendingError(invitation.status);
  const revoked = await answerGuardianInvitation(tx, access.tenantId, invitation.id, { status: 'REVOKED' });
  await recordGuardianInvitationEvent(tx, audit, 'guardian_invitation.revoked', invitation, revoked);
  return revoked;
}
