import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../db/database.js';
import { preparedPer } from '../db/prepared.js';
import { tenantMemberships, tenants, type UserRow, users } from '../db/schema.js';
import { isActive } from '../rules/membership-status.sql.js';
import { canonicalEmail, type EmailIdentity } from './email-address.js';

/*
 * The statements of identification (identify.ts, claim-address.ts): users found by their token's
 * subject or their address, made on first sight, given their newer claims; and an invited user's
 * memberships given to the person who claimed the address.
 */

const userBySubject = preparedPer((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.subject, sql.placeholder('subject')))
    .limit(1)
    .prepare('user_by_subject'),
);

export async function findUserBySubject(db: Executor, subject: string): Promise<UserRow | undefined> {
  const [row] = await userBySubject(db).execute({ subject });
  return row;
}

/** By the canonical form of the address: never by a case-mapped comparison. */
export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const canonical = canonicalEmail(email);
  if (!canonical) return undefined;
  const [row] = await db.select().from(users).where(eq(users.emailCanonical, canonical)).limit(1);
  return row;
}

/** The holder of an address, locked for the rest of the transaction. */
export async function lockUserByEmail(db: Executor, email: EmailIdentity): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(eq(users.emailCanonical, email.canonical))
    .limit(1)
    .for('update');
  return row;
}

/**
 * A first sign-in with a verified address, in one statement: the user invited with that address
 * becomes this subject's (its memberships with it), or a new user is made. One statement on the
 * unique canonical address is what makes the outcome independent of timing: an invitation that
 * commits first is claimed here; one that commits later finds this user and attaches to it.
 * Undefined when the address belongs to someone who already signed in (another subject).
 */
export async function claimOrInsertUser(
  db: Executor,
  user: { subject: string; email: EmailIdentity; displayName: string | null },
): Promise<UserRow | undefined> {
  const [row] = await db
    .insert(users)
    .values({
      id: uuidv7(),
      subject: user.subject,
      email: user.email.address,
      emailCanonical: user.email.canonical,
      displayName: user.displayName,
    })
    .onConflictDoUpdate({
      target: users.emailCanonical,
      // The person's own claims replace what the inviter knew.
      set: {
        subject: user.subject,
        email: user.email.address,
        displayName: user.displayName,
        updatedAt: sql`now()`,
      },
      // Never an erased record (its address is a pseudonym no one should verify, but none may).
      setWhere: and(isNull(users.subject), isNull(users.erasedAt)),
    })
    .returning();
  return row;
}

/** Inserts unless the subject or the email is taken; undefined when it was. */
export async function insertUserIfAbsent(
  db: Executor,
  user: { subject: string | null; email: string | null; displayName: string | null; isSuperAdmin?: boolean },
): Promise<UserRow | undefined> {
  const [row] = await db
    .insert(users)
    .values({
      id: uuidv7(),
      ...user,
      emailCanonical: user.email === null ? null : canonicalEmail(user.email),
    })
    .onConflictDoNothing()
    .returning();
  return row;
}

/** The person's own claims, from a newer token than the one the record was made from. */
export async function updateUserClaims(
  db: Executor,
  userId: string,
  claims: { email?: EmailIdentity; displayName?: string },
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({
      ...(claims.email ? { email: claims.email.address, emailCanonical: claims.email.canonical } : {}),
      ...(claims.displayName !== undefined ? { displayName: claims.displayName } : {}),
      updatedAt: sql`now()`,
    })
    // A refresh that waited on an erasure must not write the person back onto the erased record.
    .where(and(eq(users.id, userId), isNull(users.erasedAt)))
    .returning();
  return row;
}

export async function deleteUser(db: Executor, userId: string): Promise<void> {
  await db.delete(users).where(eq(users.id, userId));
}

/**
 * Locks the tenants these users belong to, in the one order every such writer follows (by id), so
 * that changing their memberships waits for, and is waited on by, each tenant's membership writes.
 */
export async function lockTenantsOfUsers(db: Executor, userIds: string[]): Promise<void> {
  const theirTenants = db
    .select({ tenantId: tenantMemberships.tenantId })
    .from(tenantMemberships)
    .where(inArray(tenantMemberships.userId, userIds));
  await db
    .select({ id: tenants.id })
    .from(tenants)
    .where(inArray(tenants.id, theirTenants))
    .orderBy(asc(tenants.id))
    .for('update');
}

const stateOf = (name: 'mine' | 'theirs') => ({
  suspendedAt: sql.raw(`${name}.suspended_at`),
  startsAt: sql.raw(`${name}.starts_at`),
  endsAt: sql.raw(`${name}.ends_at`),
});

/**
 * Gives one user's memberships to another (an invited user claimed by someone who had already
 * signed in). Where both belong to a tenant the one that does more for it is kept, its term and
 * suspension with its role: the higher role, or at the same role the ACTIVE one. So no tenant
 * loses an ACTIVE OWNER (the claimant's own membership there may be suspended or ended). The rest
 * are moved. What remains on `fromUserId` goes when that user is deleted.
 */
export async function moveMemberships(db: Executor, fromUserId: string, toUserId: string): Promise<void> {
  // The role enum is declared highest first (OWNER < ADMIN < …), so "<" reads "higher than".
  await db.execute(sql`
    update tenant_memberships as mine
    set role = theirs.role, starts_at = theirs.starts_at, ends_at = theirs.ends_at,
      suspended_at = theirs.suspended_at, suspension_reason = theirs.suspension_reason,
      version = mine.version + 1, updated_at = now()
    from tenant_memberships as theirs
    where mine.user_id = ${toUserId} and theirs.user_id = ${fromUserId} and theirs.tenant_id = mine.tenant_id
      and (theirs.role < mine.role
        or (theirs.role = mine.role and ${isActive(stateOf('theirs'))} and not ${isActive(stateOf('mine'))}))`);
  await db.execute(sql`
    update tenant_memberships
    set user_id = ${toUserId}, version = version + 1, updated_at = now()
    where user_id = ${fromUserId}
      and tenant_id not in (select tenant_id from tenant_memberships where user_id = ${toUserId})`);
}
