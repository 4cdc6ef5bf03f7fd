import {
  type CreateInvitationBodySchema,
  INVITATION_DAYS_DEFAULT,
  type ListInvitationsQuery,
} from '@tms/contract';
import type { z } from 'zod';
import type { TenantAccess } from '../../access/decide-access.js';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Transaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import {
  InvitationAlreadyPendingError,
  InvitationNotFoundError,
  InvitationNotPendingError,
  MembershipAlreadyExistsError,
} from '../../errors/index.js';
import { emailIdentityOf } from '../../identity/email-address.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { hierarchyProblem } from '../../rules/membership-rules.js';
import { refuse } from '../../rules/problems.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import {
  addressHasMembership,
  answerInvitation,
  expireLapsed,
  findInvitationInTenant,
  insertInvitation,
  renewInvitation,
} from './invitation-changes.repository.js';
import { recordInvitationEvent } from './invitation-events.js';
import { findInvitationAs, type InvitationView, listInvitationsAs } from './invitations.repository.js';

type CreateInvitationBody = z.infer<typeof CreateInvitationBodySchema>;

/**
 * A resend is a fresh invitation: it runs for the default validity again, whatever the first one
 * was given (the row does not keep its first duration; WorkOS's resend does the same).
 */
export const RESEND_DAYS = INVITATION_DAYS_DEFAULT;

const PENDING_KEY = 'invitations_pending_key';

const tenantIdOf = (requester: Requester): string => {
  if (requester.tenantId === undefined) throw new Error('an invitation route without a tenant');
  return requester.tenantId;
};

/** The invitation, within the tenant (the scope rule), or INVITATION_NOT_FOUND. */
export async function getInvitation(
  db: Database,
  requester: Requester,
  invitationId: string,
): Promise<InvitationView> {
  const tenantId = tenantIdOf(requester);
  const { items } = await readAsCaller(db, requester, (subject) =>
    findInvitationAs(db, subject, tenantId, invitationId),
  );
  const [invitation] = items;
  if (!invitation) throw new InvitationNotFoundError(invitationId);
  return invitation;
}

/** A page of the tenant's invitations in creation order, read with the caller in one statement. */
export async function listInvitationsPage(
  db: Database,
  requester: Requester,
  query: ListInvitationsQuery,
): Promise<Page<InvitationView>> {
  const filters = { tenantId: tenantIdOf(requester), statuses: query.status };
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listInvitationsAs(db, subject, { ...filters, afterId, limit: query.limit + 1 }),
  );
  return toPage(items, query.limit);
}

/*
 * The changes take the transaction their access was decided in (pipeline/tenant-transaction.ts):
 * the tenant's row is locked, so every rule below is checked on what the write commits against.
 */

export async function createInvitation(
  { tx, access, audit, caller }: TenantWrite,
  body: CreateInvitationBody,
): Promise<InvitationView> {
  const email = emailIdentityOf(body.email, 'body.email');
  refuse(hierarchyProblem(access.level, body.role, 'invite'));
  const { tenantId } = access;
  // Whatever its status: a suspended or ended member is reactivated or given new dates, not invited.
  if (await addressHasMembership(tx, tenantId, email.canonical)) throw new MembershipAlreadyExistsError();
  await expireLapsed(tx, tenantId, email.canonical);
  const created = await insertInvitation(tx, {
    tenantId,
    email,
    role: body.role,
    displayName: body.displayName ?? null,
    expiresInDays: body.expiresInDays,
    invitedByUserId: caller.userId,
  });
  if (!created) throw new InvitationAlreadyPendingError();
  await recordInvitationEvent(tx, audit, 'invitation.created', null, created);
  return created;
}

/** The invitation to change, within the tenant, if its role is within the caller's reach. */
async function invitationToChange(
  tx: Transaction,
  access: TenantAccess,
  invitationId: string,
): Promise<InvitationView> {
  const invitation = await findInvitationInTenant(tx, access.tenantId, invitationId);
  if (!invitation) throw new InvitationNotFoundError(invitationId);
  refuse(hierarchyProblem(access.level, invitation.role, 'actOnInvitation'));
  return invitation;
}

export async function resendInvitation(
  { tx, access, audit }: TenantWrite,
  invitationId: string,
): Promise<InvitationView> {
  const invitation = await invitationToChange(tx, access, invitationId);
  if (invitation.status !== 'PENDING' && invitation.status !== 'EXPIRED')
    throw new InvitationNotPendingError(invitation.status);
  const { tenantId, emailCanonical } = invitation;
  if (await addressHasMembership(tx, tenantId, emailCanonical)) throw new MembershipAlreadyExistsError();
  await expireLapsed(tx, tenantId, emailCanonical);
  try {
    const renewed = await renewInvitation(tx, tenantId, invitationId, RESEND_DAYS);
    if (!renewed) throw new InvitationAlreadyPendingError();
    await recordInvitationEvent(tx, audit, 'invitation.resent', invitation, renewed);
    return renewed;
  } catch (error) {
    if (isUniqueViolation(error, PENDING_KEY)) throw new InvitationAlreadyPendingError();
    throw error;
  }
}

export async function revokeInvitation(
  { tx, access, audit }: TenantWrite,
  invitationId: string,
): Promise<InvitationView> {
  const invitation = await invitationToChange(tx, access, invitationId);
  // An expired invitation can no longer be accepted: there is nothing left to withdraw.
  if (invitation.status !== 'PENDING') throw new InvitationNotPendingError(invitation.status);
  const revoked = await answerInvitation(tx, access.tenantId, invitationId, { status: 'REVOKED' });
  await recordInvitationEvent(tx, audit, 'invitation.revoked', invitation, revoked);
  return revoked;
}
