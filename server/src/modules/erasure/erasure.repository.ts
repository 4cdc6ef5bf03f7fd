import { and, asc, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/database.js';
import {
  guardianLinks,
  invitations,
  ownershipTransfers,
  tenantMemberships,
  tenants,
  type UserRow,
  users,
} from '../../db/schema.js';
import { activeOwnersOf, isActiveOwner } from '../../rules/membership-status.sql.js';
import { guardianInvitationTenantsOf } from './erasure-guardians.js';
import { joiningTenantsOf } from './erasure-joining.js';
import type { Pseudonym } from './pseudonym.js';

/*
 * What the erasure of a user (user-erasure.service.ts) reads and writes outside the audit trail,
 * all in its one transaction. The trail's rewrite is in user-erasure-trail.repository.ts.
 */

/** A list of ids as one JSON parameter: PGlite mis-frames array parameters. */
export const idsIn = (ids: Iterable<string>) =>
  sql`(select value::uuid from jsonb_array_elements_text(${JSON.stringify([...ids])}::jsonb))`;

/** Invitations to the address (a user without one has none). */
const addressedTo = (canonicalEmail: string | null): SQL =>
  canonicalEmail === null ? sql`false` : eq(invitations.emailCanonical, canonicalEmail);

export async function lockUser(tx: Transaction, userId: string): Promise<UserRow | undefined> {
  const [row] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
  return row;
}

/**
 * Locks, in id order (the order every writer of several tenants follows), the tenants whose rows
 * the erasure changes: those of the user's memberships, deleted ones included, and those with a
 * pending invitation to the user's address, and those of the user's pending join requests and join
 * blocks. Every writer of a tenant's memberships, invitations
 * and transfers takes its tenant's lock first, so nothing the erasure checks (the last ACTIVE
 * OWNER, the pending invitations and transfers) changes before it commits.
 */
export async function lockTenantsOfPerson(
  tx: Transaction,
  userId: string,
  canonicalEmail: string | null,
): Promise<void> {
  const ofMemberships = tx
    .select({ tenantId: tenantMemberships.tenantId })
    .from(tenantMemberships)
    .where(eq(tenantMemberships.userId, userId));
  const ofInvitations = tx
    .select({ tenantId: invitations.tenantId })
    .from(invitations)
    .where(and(addressedTo(canonicalEmail), eq(invitations.status, 'PENDING')));
  // The tenants of their guardian links, as guardian or as student: the erasure removes them.
  const ofLinks = tx
    .select({ tenantId: guardianLinks.tenantId })
    .from(guardianLinks)
    .where(or(eq(guardianLinks.guardianUserId, userId), eq(guardianLinks.studentUserId, userId)));
  await tx
    .select({ id: tenants.id })
    .from(tenants)
    .where(
      or(
        inArray(tenants.id, ofMemberships),
        inArray(tenants.id, ofInvitations),
        inArray(tenants.id, joiningTenantsOf(tx, userId)),
        inArray(tenants.id, ofLinks),
        inArray(tenants.id, guardianInvitationTenantsOf(tx, userId, canonicalEmail)),
      ),
    )
    .orderBy(asc(tenants.id))
    .for('update');
}

/**
 * The tenants (not deleted) of which the user is an ACTIVE OWNER, each with how many ACTIVE OWNERs
 * it has: what the last-owner rule decides an erasure on (rules/membership-rules.ts).
 */
export async function ownerSeatsOf(tx: Transaction, userId: string) {
  const m = tenantMemberships;
  return tx
    .select({ tenantId: m.tenantId, activeOwners: activeOwnersOf(m.tenantId) })
    .from(m)
    .innerJoin(tenants, and(eq(tenants.id, m.tenantId), isNull(tenants.deletedAt)))
    .where(and(eq(m.userId, userId), isActiveOwner(m)))
    .orderBy(asc(m.tenantId));
}

/** The user's memberships, in tenant order, with the name each tenant gave them. */
export async function membershipsOfUser(tx: Transaction, userId: string) {
  return tx
    .select({
      id: tenantMemberships.id,
      tenantId: tenantMemberships.tenantId,
      invitedDisplayName: tenantMemberships.invitedDisplayName,
    })
    .from(tenantMemberships)
    .where(eq(tenantMemberships.userId, userId))
    .orderBy(asc(tenantMemberships.tenantId), asc(tenantMemberships.id));
}

/**
 * The invitations that are the person's: addressed to the address they hold, or accepted by them
 * (under an address they held then), with whether each is still open (PENDING, not expired).
 */
export async function invitationsOfPerson(tx: Transaction, userId: string, canonicalEmail: string | null) {
  const i = invitations;
  return tx
    .select({
      id: i.id,
      tenantId: i.tenantId,
      email: i.email,
      emailCanonical: i.emailCanonical,
      displayName: i.displayName,
      open: sql<boolean>`(${i.status} = 'PENDING' and ${i.expiresAt} > now())`,
    })
    .from(i)
    .where(or(addressedTo(canonicalEmail), eq(i.acceptedUserId, userId)))
    .orderBy(asc(i.tenantId), asc(i.id));
}

/** The open transfers (PENDING, not expired) that name one of the user's memberships, either side. */
export async function openTransfersNaming(tx: Transaction, userId: string) {
  const t = ownershipTransfers;
  const m = tenantMemberships;
  return tx
    .selectDistinct({ id: t.id, tenantId: t.tenantId })
    .from(t)
    .innerJoin(
      m,
      and(eq(m.tenantId, t.tenantId), or(eq(m.id, t.fromMembershipId), eq(m.id, t.toMembershipId))),
    )
    .where(and(eq(m.userId, userId), eq(t.status, 'PENDING'), sql`${t.expiresAt} > now()`))
    .orderBy(asc(t.tenantId), asc(t.id));
}

/**
 * The pseudonym in place of the person: the address and its canonical form (so that the unique
 * index still holds and nobody's address is ever found here), the name; no subject (whoever signs
 * in with it again is a new user), no super-administrator flag; marked erased.
 */
export async function pseudonymiseUser(
  tx: Transaction,
  userId: string,
  pseudonym: Pseudonym,
): Promise<UserRow> {
  const [row] = await tx
    .update(users)
    .set({
      email: pseudonym.email,
      emailCanonical: pseudonym.email,
      displayName: pseudonym.name,
      subject: null,
      isSuperAdmin: false,
      erasedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(eq(users.id, userId))
    .returning();
  if (!row) throw new Error(`user ${userId} vanished under its lock`);
  return row;
}

/**
 * The person's invitations show the pseudonym (a name only where the inviter gave one). Their
 * `updated_at` stays: this rewrites what they showed, as the trail's rewrite does, so that an
 * invitation's next event still starts from what its last one ended with.
 */
export async function pseudonymiseInvitations(
  tx: Transaction,
  invitationIds: string[],
  pseudonym: Pseudonym,
): Promise<void> {
  if (invitationIds.length === 0) return;
  await tx
    .update(invitations)
    .set({
      email: pseudonym.email,
      emailCanonical: pseudonym.email,
      displayName: sql`(case when ${invitations.displayName} is null then null else ${pseudonym.name} end)`,
    })
    .where(sql`${invitations.id} in ${idsIn(invitationIds)}`);
}

/**
 * The user's idempotency keys (their stored answers may show anyone they added, themselves
 * included): nobody can send them again, since nobody signs in as this user any more.
 */
export async function deleteIdempotencyKeysOf(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`delete from idempotency_keys where user_id = ${userId}::uuid`);
}

/** The rate-limit counters kept under the user's token subject. */
export async function deleteRateLimitHitsOf(tx: Executor, subject: string): Promise<void> {
  await tx.execute(sql`delete from rate_limit_hits where key = ${`sub:${subject}`}`);
}

/** Some rows match: `text` ILIKE one of `patterns` (none: nothing matches). */
export const textMatchesAny = (text: SQL, patterns: string[]): SQL =>
  patterns.length === 0
    ? sql`false`
    : sql`(${sql.join(
        patterns.map((pattern) => sql`${text} ilike ${pattern}`),
        sql` or `,
      )})`;
