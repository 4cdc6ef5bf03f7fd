import { and, eq, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type UserRow, users } from '../../db/schema.js';
import { canonicalEmail, type EmailIdentity } from '../../identity/email-address.js';

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

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
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

/**
 * The user an address names: whoever holds it (signed in or invited), or a new invited user
 * (no subject) that the first sign-in with that address, verified, claims.
 */
export async function findOrInsertInvitedUser(db: Executor, email: EmailIdentity): Promise<UserRow> {
  // A holder removed between the conflict and the read (merged into the person who signed in) is
  // gone for good, so the next round inserts or finds the new holder.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [inserted] = await db
      .insert(users)
      .values({ id: uuidv7(), subject: null, email: email.address, emailCanonical: email.canonical })
      .onConflictDoNothing({ target: users.emailCanonical })
      .returning();
    if (inserted) return inserted;
    // The conflict waited for the holder's transaction: a fresh statement sees it committed.
    const [holder] = await db.select().from(users).where(eq(users.emailCanonical, email.canonical)).limit(1);
    if (holder) return holder;
  }
  throw new Error('the holder of an email address kept vanishing while inviting');
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

/** The user of a subject, locked: a grant or revocation reads what it changes under the lock. */
export async function lockUserBySubject(db: Executor, subject: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.subject, subject)).for('update');
  return row;
}

/**
 * Sets the flag on the subject's user, made for the occasion if the subject never signed in;
 * undefined when it was set already (by a concurrent grant, say: two processes starting with the
 * same SUPER_ADMIN_SUBJECTS), so that one grant records one event.
 */
export async function upsertSuperAdminFlag(db: Executor, subject: string): Promise<UserRow | undefined> {
  const [row] = await db
    .insert(users)
    .values({ id: uuidv7(), subject, isSuperAdmin: true })
    .onConflictDoUpdate({
      target: users.subject,
      set: { isSuperAdmin: true, updatedAt: sql`now()` },
      setWhere: eq(users.isSuperAdmin, false),
    })
    .returning();
  return row;
}

export async function clearSuperAdminFlag(db: Executor, subject: string): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ isSuperAdmin: false, updatedAt: sql`now()` })
    .where(eq(users.subject, subject))
    .returning();
  return row;
}
