import type { Role } from '@tms/contract';
import { and, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { invitations, tenantMemberships, users } from '../../db/schema.js';
import type { EmailIdentity } from '../../identity/email-address.js';
import { type MembershipWithUser, membershipColumns } from '../memberships/memberships.repository.js';
import { type InvitationView, inTenant, invitationColumns } from './invitations.repository.js';

/*
 * The changes, each run under the lock of the invitation's tenant row (the request transaction of
 * a tenant route, or the invitee's own transaction, see invitee.service.ts): every writer of a
 * tenant's invitations and memberships takes it first, so what a rule was checked on is still
 * true when the change commits. The partial unique index `invitations_pending_key` stays the last
 * word on "one pending invitation per address": it holds even for a writer that forgot the lock.
 */

const days = (n: number) => sql`now() + make_interval(days => ${n}::int)`;

/** The invitation, within its tenant (the scope rule). */
export async function findInvitationInTenant(
  db: Executor,
  tenantId: string,
  invitationId: string,
): Promise<InvitationView | undefined> {
  const [row] = await db.select(invitationColumns).from(invitations).where(inTenant(tenantId, invitationId));
  return row;
}

/** Which tenant's lock an invitee's answer must take; an invitation's tenant never changes. */
export async function tenantOfInvitation(db: Executor, invitationId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ tenantId: invitations.tenantId })
    .from(invitations)
    .where(eq(invitations.id, invitationId));
  return row?.tenantId;
}

/** Whether whoever holds the address (signed in or invited by "add by email") is a member, in any status. */
export async function addressHasMembership(
  db: Executor,
  tenantId: string,
  canonical: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: tenantMemberships.id })
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(users.emailCanonical, canonical)))
    .limit(1);
  return row !== undefined;
}

/**
 * Writes EXPIRED on the address's lapsed invitation to the tenant, if it still reads PENDING in its
 * row: it then no longer holds the one pending slot that the unique index keeps per address.
 */
export async function expireLapsed(db: Executor, tenantId: string, canonical: string): Promise<void> {
  await db
    .update(invitations)
    .set({ status: 'EXPIRED', updatedAt: sql`now()` })
    .where(
      and(
        eq(invitations.tenantId, tenantId),
        eq(invitations.emailCanonical, canonical),
        eq(invitations.status, 'PENDING'),
        sql`${invitations.expiresAt} <= now()`,
      ),
    );
}

/** A new PENDING invitation; undefined when the address already has one here (the unique index). */
export async function insertInvitation(
  db: Executor,
  invitation: {
    tenantId: string;
    email: EmailIdentity;
    role: Role;
    displayName: string | null;
    expiresInDays: number;
    invitedByUserId: string;
  },
): Promise<InvitationView | undefined> {
  const [row] = await db
    .insert(invitations)
    .values({
      id: uuidv7(),
      tenantId: invitation.tenantId,
      email: invitation.email.address,
      emailCanonical: invitation.email.canonical,
      role: invitation.role,
      displayName: invitation.displayName,
      expiresAt: days(invitation.expiresInDays),
      invitedByUserId: invitation.invitedByUserId,
    })
    .onConflictDoNothing({
      target: [invitations.tenantId, invitations.emailCanonical],
      where: sql`"status" = 'PENDING'`,
    })
    .returning(invitationColumns);
  return row;
}

/**
 * PENDING again, until `expiresInDays` from now; undefined when another invitation holds the
 * address's pending slot (this one had expired, and a new one was sent since).
 */
export async function renewInvitation(
  db: Executor,
  tenantId: string,
  invitationId: string,
  expiresInDays: number,
): Promise<InvitationView | undefined> {
  const [row] = await db
    .update(invitations)
    .set({ status: 'PENDING', expiresAt: days(expiresInDays), updatedAt: sql`now()` })
    .where(
      and(
        inTenant(tenantId, invitationId),
        sql`not exists (select 1 from ${invitations} as "other"
          where "other"."tenant_id" = ${invitations.tenantId}
            and "other"."email_canonical" = ${invitations.emailCanonical}
            and "other"."status" = 'PENDING' and "other"."id" <> ${invitations.id})`,
      ),
    )
    .returning(invitationColumns);
  return row;
}

export type Answer = { status: 'REVOKED' | 'DECLINED' } | { status: 'ACCEPTED'; acceptedUserId: string };

/** Records the answer to an invitation the service found PENDING under the lock. */
export async function answerInvitation(
  db: Executor,
  tenantId: string,
  invitationId: string,
  answer: Answer,
): Promise<InvitationView> {
  const accepted =
    answer.status === 'ACCEPTED' ? { acceptedAt: sql`now()`, acceptedUserId: answer.acceptedUserId } : {};
  const [row] = await db
    .update(invitations)
    .set({ status: answer.status, ...accepted, updatedAt: sql`now()` })
    .where(inTenant(tenantId, invitationId))
    .returning(invitationColumns);
  if (!row) throw new Error(`invitation ${invitationId} vanished under its tenant's lock`);
  return row;
}

/** The membership an accepted invitation makes; undefined when the user already is a member. */
export async function insertInvitedMembership(
  db: Executor,
  membership: { tenantId: string; userId: string; role: Role; invitedDisplayName: string | null },
): Promise<Omit<MembershipWithUser, 'user'> | undefined> {
  const [row] = await db
    .insert(tenantMemberships)
    .values({ id: uuidv7(), ...membership })
    .onConflictDoNothing({ target: [tenantMemberships.tenantId, tenantMemberships.userId] })
    .returning(membershipColumns);
  return row;
}
