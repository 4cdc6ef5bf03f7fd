import type { Role } from '@tms/contract';
import { and, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type MembershipRow, tenantMemberships, users } from '../../db/schema.js';
import type { EmailIdentity } from '../../identity/email-address.js';
import { type MembershipWithUser, membershipColumns } from './memberships.repository.js';

/*
 * Each change is one statement that also reads what its rules are checked on: the membership as it
 * was, and how many OWNERs the tenant had when it was an OWNER. The service checks the rules on
 * that after the statement; a refusal throws, and the request's transaction (which holds the
 * tenant's lock, see access/access.repository.ts) rolls the change back. Nothing refused is seen.
 */

/** The membership as it was before the change, and, for an OWNER, how many OWNERs there were. */
export type Before = MembershipWithUser & { owners: number | null };

const TENANT = sql.placeholder('tenantId');
const MEMBERSHIP = sql.placeholder('membershipId');

/** The membership the URL names, within its tenant (the scope rule). */
const thisMembership = and(eq(tenantMemberships.tenantId, TENANT), eq(tenantMemberships.id, MEMBERSHIP));

function membershipNamed(db: Executor) {
  return db.$with('target').as(
    db
      .select({
        ...membershipColumns,
        email: users.email,
        displayName: users.displayName,
        // The last-owner rule is about OWNERs only: nobody else's change counts them.
        owners: sql<number | null>`case when ${tenantMemberships.role} = 'OWNER' then (
          select count(*)::int from ${tenantMemberships} as "owner"
          where "owner"."tenant_id" = ${TENANT} and "owner"."role" = 'OWNER') end`.as('owners'),
      })
      .from(tenantMemberships)
      .innerJoin(users, eq(users.id, tenantMemberships.userId))
      .where(thisMembership),
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
  startsAt: target.startsAt,
  endsAt: target.endsAt,
  suspendedAt: target.suspendedAt,
  suspensionReason: target.suspensionReason,
  email: target.email,
  displayName: target.displayName,
  owners: target.owners,
});

type BeforeRow = MembershipRow & { email: string | null; displayName: string | null; owners: number | null };
const asBefore = ({ email, displayName, ...row }: BeforeRow): Before => ({
  ...row,
  user: { email, displayName },
});

const updateRole = preparedPer((db) => {
  const target = membershipNamed(db);
  const changed = db.$with('changed').as(
    db
      .update(tenantMemberships)
      .set({
        role: sql`${sql.placeholder('role')}::membership_role`,
        version: sql`${tenantMemberships.version} + 1`,
        updatedAt: sql`now()`,
      })
      .where(
        and(thisMembership, sql`${tenantMemberships.role} <> ${sql.placeholder('role')}::membership_role`),
      )
      .returning({ version: tenantMemberships.version, updatedAt: tenantMemberships.updatedAt }),
  );
  return db
    .with(target, changed)
    .select({ ...beforeFields(target), newVersion: changed.version, newUpdatedAt: changed.updatedAt })
    .from(target)
    .leftJoin(changed, sql`true`)
    .prepare('update_membership_role');
});

/** Gives the membership `role` (unless it has it already); undefined when there is no such membership. */
export async function updateRoleReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
  role: Role,
): Promise<{ before: Before; after: MembershipWithUser | null } | undefined> {
  const [row] = await updateRole(db).execute({ tenantId, membershipId, role });
  if (!row) return undefined;
  const { newVersion, newUpdatedAt, ...was } = row;
  const before = asBefore(was);
  const after =
    newVersion === null || newUpdatedAt === null
      ? null
      : { ...before, role, version: newVersion, updatedAt: newUpdatedAt };
  return { before, after };
}

const deleteOne = preparedPer((db) => {
  const target = membershipNamed(db);
  const removed = db
    .$with('removed')
    .as(db.delete(tenantMemberships).where(thisMembership).returning({ id: tenantMemberships.id }));
  return db.with(target, removed).select(beforeFields(target)).from(target).prepare('delete_membership');
});

/** Deletes the membership; undefined when there is no such membership. */
export async function deleteReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<Before | undefined> {
  const [row] = await deleteOne(db).execute({ tenantId, membershipId });
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
    // A new membership is ACTIVE and open-ended.
    startsAt: sql<Date | null>`null::timestamptz`.as('starts_at'),
    endsAt: sql<Date | null>`null::timestamptz`.as('ends_at'),
    suspendedAt: sql<Date | null>`null::timestamptz`.as('suspended_at'),
    suspensionReason: sql<string | null>`null::text`.as('suspension_reason'),
  },
};

type Added = {
  person: { email: string | null; displayName: string | null } | null;
  added: MembershipRow | null;
};

const PERSON = { id: users.id, email: users.email, displayName: users.displayName };

/** The new membership of `person` (the CTE named so), unless the person already is a member. */
function addingMember(db: Executor) {
  const person = db.$with('person').as(db.select(PERSON).from(users));
  const added = db.$with('added').as(
    db
      .insert(tenantMemberships)
      .select(
        db
          .select({
            id: sql<string>`${sql.placeholder('newId')}::uuid`.as('id'),
            tenantId: sql<string>`${TENANT}::uuid`.as('tenant_id'),
            userId: person.id,
            role: sql<Role>`${sql.placeholder('role')}::membership_role`.as('role'),
            invitedDisplayName: sql<string | null>`${sql.placeholder('invitedDisplayName')}::text`.as(
              'invited_display_name',
            ),
            ...NEW_ROW_DEFAULTS.membership,
          })
          .from(person),
      )
      .onConflictDoNothing({ target: [tenantMemberships.tenantId, tenantMemberships.userId] })
      .returning(),
  );
  const selection = {
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
      startsAt: added.startsAt,
      endsAt: added.endsAt,
      suspendedAt: added.suspendedAt,
      suspensionReason: added.suspensionReason,
    },
  };
  return { person, added, selection };
}

const addUser = preparedPer((db) => {
  const { person, added, selection } = addingMember(db);
  const named = db.$with('person').as(
    db
      .select(PERSON)
      .from(users)
      .where(eq(users.id, sql.placeholder('userId'))),
  );
  return db
    .with(named, added)
    .select(selection)
    .from(person)
    .leftJoin(added, sql`true`)
    .prepare('add_member_user');
});

/**
 * Adds the user to the tenant, reading the user with it. `person` null: no such user; `added`
 * null: already a member.
 */
export async function insertMembershipOfUser(
  db: Executor,
  membership: { tenantId: string; userId: string; role: Role },
): Promise<Added> {
  const [row] = await addUser(db).execute({ ...membership, newId: uuidv7(), invitedDisplayName: null });
  return { person: row?.person ?? null, added: row?.added ?? null };
}

const addAddress = preparedPer((db) => {
  const { person, added, selection } = addingMember(db);
  const holder = db.$with('holder').as(
    db
      .select(PERSON)
      .from(users)
      .where(eq(users.emailCanonical, sql.placeholder('canonical'))),
  );
  const invited = db.$with('invited').as(
    db
      .insert(users)
      .select(
        db
          .select({
            id: sql<string>`${sql.placeholder('newUserId')}::uuid`.as('id'),
            subject: sql<null>`null`.as('subject'),
            email: sql<string>`${sql.placeholder('address')}::text`.as('email'),
            emailCanonical: sql<string>`${sql.placeholder('canonical')}::text`.as('email_canonical'),
            displayName: sql<null>`null`.as('display_name'),
            ...NEW_ROW_DEFAULTS.user,
          })
          .from(sql`(select 1) as "one"`)
          .where(sql`not exists (select 1 from ${holder})`),
      )
      .onConflictDoNothing({ target: users.emailCanonical })
      .returning(PERSON),
  );
  const either = db.$with('person').as(
    db
      .select({ id: holder.id, email: holder.email, displayName: holder.displayName })
      .from(holder)
      .unionAll(
        db.select({ id: invited.id, email: invited.email, displayName: invited.displayName }).from(invited),
      ),
  );
  return db
    .with(holder, invited, either, added)
    .select(selection)
    .from(person)
    .leftJoin(added, sql`true`)
    .prepare('add_member_address');
});

/**
 * Adds whoever holds the address (signed in or invited), or a new invited user for it, in one
 * statement. `person` null: someone else's statement inserted the address meanwhile (the insert
 * waited for it, then did nothing): a fresh statement finds it.
 */
export async function insertMembershipOfAddress(
  db: Executor,
  membership: { tenantId: string; email: EmailIdentity; role: Role; invitedDisplayName: string | null },
): Promise<Added> {
  const { email, ...rest } = membership;
  const [row] = await addAddress(db).execute({
    ...rest,
    newId: uuidv7(),
    newUserId: uuidv7(),
    address: email.address,
    canonical: email.canonical,
  });
  return { person: row?.person ?? null, added: row?.added ?? null };
}
