import type { Role } from '@tms/contract';
import { and, eq, ne, type SQL, sql, type WithSubquery } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { type MembershipRow, tenantMemberships, users } from '../../db/schema.js';
import type { EmailIdentity } from '../../identity/email-address.js';
import type { MembershipWithUser } from './memberships.repository.js';

/*
 * Each change is one statement that also reads what its rules are checked on: the membership as it
 * was, and how many OWNERs the tenant had when it was an OWNER. The service checks the rules on
 * that after the statement; a refusal throws, and the request's transaction (which holds the
 * tenant's lock, see access/access.repository.ts) rolls the change back. Nothing refused is seen.
 */

/** The membership as it was before the change, and, for an OWNER, how many OWNERs there were. */
export type Before = MembershipWithUser & { owners: number | null };

function membershipNamed(db: Executor, tenantId: string, membershipId: string) {
  return db.$with('target').as(
    db
      .select({
        id: tenantMemberships.id,
        tenantId: tenantMemberships.tenantId,
        userId: tenantMemberships.userId,
        role: tenantMemberships.role,
        invitedDisplayName: tenantMemberships.invitedDisplayName,
        version: tenantMemberships.version,
        createdAt: tenantMemberships.createdAt,
        updatedAt: tenantMemberships.updatedAt,
        email: users.email,
        displayName: users.displayName,
        // The last-owner rule is about OWNERs only: nobody else's change counts them.
        owners: sql<number | null>`case when ${tenantMemberships.role} = 'OWNER' then (
          select count(*)::int from ${tenantMemberships} as "owner"
          where "owner"."tenant_id" = ${tenantId} and "owner"."role" = 'OWNER') end`.as('owners'),
      })
      .from(tenantMemberships)
      .innerJoin(users, eq(users.id, tenantMemberships.userId))
      .where(and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.id, membershipId))),
  );
}

type Target = ReturnType<typeof membershipNamed>;

const beforeFields = (target: Target) => ({
  id: target.id,
  tenantId: target.tenantId,
  userId: target.userId,
  role: target.role,
  invitedDisplayName: target.invitedDisplayName,
  version: target.version,
  createdAt: target.createdAt,
  updatedAt: target.updatedAt,
  email: target.email,
  displayName: target.displayName,
  owners: target.owners,
});

type BeforeRow = MembershipRow & { email: string | null; displayName: string | null; owners: number | null };
const asBefore = ({ email, displayName, ...row }: BeforeRow): Before => ({
  ...row,
  user: { email, displayName },
});

const thisMembership = (tenantId: string, membershipId: string): SQL | undefined =>
  and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.id, membershipId));

/** Gives the membership `role` (unless it has it already); undefined when there is no such membership. */
export async function updateRoleReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
  role: Role,
): Promise<{ before: Before; after: MembershipWithUser | null } | undefined> {
  const target = membershipNamed(db, tenantId, membershipId);
  const changed = db.$with('changed').as(
    db
      .update(tenantMemberships)
      .set({ role, version: sql`${tenantMemberships.version} + 1`, updatedAt: sql`now()` })
      .where(and(thisMembership(tenantId, membershipId), ne(tenantMemberships.role, role)))
      .returning({ version: tenantMemberships.version, updatedAt: tenantMemberships.updatedAt }),
  );
  const [row] = await db
    .with(target, changed)
    .select({ ...beforeFields(target), newVersion: changed.version, newUpdatedAt: changed.updatedAt })
    .from(target)
    .leftJoin(changed, sql`true`);
  if (!row) return undefined;
  const { newVersion, newUpdatedAt, ...was } = row;
  const before = asBefore(was);
  const after =
    newVersion === null || newUpdatedAt === null
      ? null
      : { ...before, role, version: newVersion, updatedAt: newUpdatedAt };
  return { before, after };
}

/** Deletes the membership; undefined when there is no such membership. */
export async function deleteReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<Before | undefined> {
  const target = membershipNamed(db, tenantId, membershipId);
  const removed = db
    .$with('removed')
    .as(
      db
        .delete(tenantMemberships)
        .where(thisMembership(tenantId, membershipId))
        .returning({ id: tenantMemberships.id }),
    );
  const [row] = await db.with(target, removed).select(beforeFields(target)).from(target);
  return row && asBefore(row);
}

/** INSERT ... SELECT names every column, in the table's order: the columns' defaults, spelt out. */
const NEW_ROW_DEFAULTS = {
  user: {
    isSuperAdmin: sql<boolean>`false`.as('is_super_admin'),
    createdAt: sql<Date>`now()`.as('created_at'),
    updatedAt: sql<Date>`now()`.as('updated_at'),
  },
  membership: {
    version: sql<number>`1`.as('version'),
    // Filled by the table's trigger, from the user.
    search: sql<string>`''`.as('search'),
    createdAt: sql<Date>`now()`.as('created_at'),
    updatedAt: sql<Date>`now()`.as('updated_at'),
  },
};

type Added = {
  person: { email: string | null; displayName: string | null } | null;
  added: MembershipRow | null;
};

/**
 * Adds the user to the tenant, reading the user with it. `person` null: no such user; `added`
 * null: already a member.
 */
export async function insertMembershipOfUser(
  db: Executor,
  membership: { tenantId: string; userId: string; role: Role },
): Promise<Added> {
  const person = db
    .$with('person')
    .as(
      db
        .select({ id: users.id, email: users.email, displayName: users.displayName })
        .from(users)
        .where(eq(users.id, membership.userId)),
    );
  return addMember(db, person, membership, null);
}

/**
 * Adds whoever holds the address (signed in or invited), or a new invited user for it, in one
 * statement. `person` null: someone else's statement inserted the address meanwhile (the insert
 * waited for it, then did nothing): a fresh statement finds it.
 */
export async function insertMembershipOfAddress(
  db: Executor,
  membership: { tenantId: string; email: EmailIdentity; role: Role; invitedDisplayName: string | null },
): Promise<Added> {
  const { email } = membership;
  const holder = db
    .$with('holder')
    .as(
      db
        .select({ id: users.id, email: users.email, displayName: users.displayName })
        .from(users)
        .where(eq(users.emailCanonical, email.canonical)),
    );
  const invited = db.$with('invited').as(
    db
      .insert(users)
      .select(
        db
          .select({
            id: sql<string>`${uuidv7()}::uuid`.as('id'),
            subject: sql<null>`null`.as('subject'),
            email: sql<string>`${email.address}`.as('email'),
            emailCanonical: sql<string>`${email.canonical}`.as('email_canonical'),
            displayName: sql<null>`null`.as('display_name'),
            ...NEW_ROW_DEFAULTS.user,
          })
          .from(sql`(select 1) as "one"`)
          .where(sql`not exists (select 1 from ${holder})`),
      )
      .onConflictDoNothing({ target: users.emailCanonical })
      .returning({ id: users.id, email: users.email, displayName: users.displayName }),
  );
  const person = db.$with('person').as(
    db
      .select({ id: holder.id, email: holder.email, displayName: holder.displayName })
      .from(holder)
      .unionAll(
        db.select({ id: invited.id, email: invited.email, displayName: invited.displayName }).from(invited),
      ),
  );
  return addMember(db, person, membership, membership.invitedDisplayName, [holder, invited]);
}

type Person = ReturnType<typeof personOf>;
const personOf = (db: Executor) =>
  db
    .$with('person')
    .as(db.select({ id: users.id, email: users.email, displayName: users.displayName }).from(users));

async function addMember(
  db: Executor,
  person: Person,
  membership: { tenantId: string; role: Role },
  invitedDisplayName: string | null,
  before: WithSubquery[] = [],
): Promise<Added> {
  const added = db.$with('added').as(
    db
      .insert(tenantMemberships)
      .select(
        db
          .select({
            id: sql<string>`${uuidv7()}::uuid`.as('id'),
            tenantId: sql<string>`${membership.tenantId}::uuid`.as('tenant_id'),
            userId: person.id,
            role: sql<Role>`${membership.role}::membership_role`.as('role'),
            invitedDisplayName: sql<string | null>`${invitedDisplayName}::text`.as('invited_display_name'),
            ...NEW_ROW_DEFAULTS.membership,
          })
          .from(person),
      )
      .onConflictDoNothing({ target: [tenantMemberships.tenantId, tenantMemberships.userId] })
      .returning(),
  );
  const [row] = await db
    .with(...before, person, added)
    .select({
      person: { email: person.email, displayName: person.displayName },
      added: {
        id: added.id,
        tenantId: added.tenantId,
        userId: added.userId,
        role: added.role,
        invitedDisplayName: added.invitedDisplayName,
        version: added.version,
        createdAt: added.createdAt,
        updatedAt: added.updatedAt,
      },
    })
    .from(person)
    .leftJoin(added, sql`true`);
  return { person: row?.person ?? null, added: row?.added ?? null };
}
