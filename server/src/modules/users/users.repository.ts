import type { Role } from '@tms/contract';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships, type UserRow, users } from '../../db/schema.js';

const byEmail = (email: string) => sql`lower(${users.email}) = lower(${email})`;

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

const userBySubjectWithRole = preparedPer((db) =>
  db
    .select({ user: users, role: tenantMemberships.role })
    .from(users)
    .leftJoin(
      tenantMemberships,
      and(
        eq(tenantMemberships.userId, users.id),
        eq(tenantMemberships.tenantId, sql.placeholder('tenantId')),
      ),
    )
    .where(eq(users.subject, sql.placeholder('subject')))
    .limit(1)
    .prepare('user_by_subject_with_role'),
);

/** The user and, in the same round trip, its role in one tenant (null: not a member). */
export async function findUserBySubjectWithRole(
  db: Executor,
  subject: string,
  tenantId: string,
): Promise<{ user: UserRow; role: Role | null } | undefined> {
  const [row] = await userBySubjectWithRole(db).execute({ subject, tenantId });
  return row;
}

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(byEmail(email)).limit(1);
  return row;
}

/** Gives an invited user (no subject yet) with this email to the subject; undefined if none waits. */
export async function claimInvitedUser(
  db: Executor,
  email: string,
  subject: string,
  displayName: string | undefined,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({
      subject,
      displayName: sql`coalesce(${users.displayName}, ${displayName ?? null})`,
      updatedAt: sql`now()`,
    })
    .where(and(byEmail(email), isNull(users.subject)))
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
    .values({ id: uuidv7(), ...user })
    .onConflictDoNothing()
    .returning();
  return row;
}

/** An invited user: known by email only, until a login with that verified email claims it. */
export async function findOrInsertInvitedUser(
  db: Executor,
  email: string,
  displayName: string | undefined,
): Promise<UserRow> {
  const existing = await findUserByEmail(db, email);
  if (existing) return existing;
  const inserted = await insertUserIfAbsent(db, { subject: null, email, displayName: displayName ?? null });
  if (inserted) return inserted;
  // Another request invited the same email between our read and our insert.
  const raced = await findUserByEmail(db, email);
  if (!raced) throw new Error(`user with email ${email} vanished while inviting`);
  return raced;
}

export async function grantSuperAdmin(db: Executor, subject: string): Promise<void> {
  await db
    .insert(users)
    .values({ id: uuidv7(), subject, isSuperAdmin: true })
    .onConflictDoUpdate({ target: users.subject, set: { isSuperAdmin: true, updatedAt: sql`now()` } });
}

export async function revokeSuperAdmin(db: Executor, subject: string): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ isSuperAdmin: false, updatedAt: sql`now()` })
    .where(eq(users.subject, subject))
    .returning({ id: users.id });
  return rows.length > 0;
}
