import { eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { type UserRow, users } from '../../db/schema.js';
import type { EmailIdentity } from '../../identity/email-address.js';

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
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
