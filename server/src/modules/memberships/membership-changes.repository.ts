import type { Role } from '@tms/contract';
import { and, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { fixedStatement, runStatement } from '../../db/fixed-statement.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships, users } from '../../db/schema.js';
import type { EmailIdentity } from '../../identity/email-address.js';
import { statusOf } from '../../rules/membership-status.sql.js';
import { type Change, recordedWith } from '../audit/audit-events.repository.js';
import {
  type Before,
  beforeFields,
  membershipNamed,
  TENANT,
  thisMembership,
} from './membership-target.sql.js';
import type { MembershipWithUser } from './memberships.repository.js';

/*
 * Adding and removing a member. Role, date and status changes are in membership-updates.repository.ts.
 */

const deleteOne = preparedPer((db) => {
  const target = membershipNamed(db);
  const removed = db
    .$with('removed')
    .as(db.delete(tenantMemberships).where(thisMembership).returning({ id: tenantMemberships.id }));
  return db.with(target, removed).select(beforeFields(target)).from(target).prepare('delete_membership');
});

const REMOVE = sql`delete from ${tenantMemberships} where ${thisMembership}`;
const REMOVE_WITH_EVENT = recordedWith('remove_membership', REMOVE);

/**
 * Removes the membership, decided on beforehand (findForChange). A tenant write pipelines it inside
 * its audit event's statement (its answer is not needed: the row was read under the tenant's lock);
 * removeMembershipRow runs it.
 */
export const membershipRemoval = (tenantId: string, membershipId: string): Change => ({
  kind: REMOVE_WITH_EVENT,
  values: { tenantId, membershipId },
});

const removing = fixedStatement('remove_membership', sql`${REMOVE} returning ${tenantMemberships.id}`);

/** The same removal, waited for: false when there was no such membership. */
export async function removeMembershipRow(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<boolean> {
  return (await runStatement(db, removing({ tenantId, membershipId }))).length > 0;
}

/**
 * Deletes the membership and answers it as it was; undefined when there is no such membership.
 * For the erasure of a user, which decides on all of the user's memberships at once beforehand.
 */
export async function deleteReturningBefore(
  db: Executor,
  tenantId: string,
  membershipId: string,
): Promise<Before | undefined> {
  const [row] = await deleteOne(db).execute({ tenantId, membershipId });
  return row;
}

/** INSERT ... SELECT names every column, in the table's order: the columns' defaults, spelt out. */
const NEW_ROW_DEFAULTS = {
  user: {
    isSuperAdmin: sql<boolean>`false`.as('is_super_admin'),
    createdAt: sql<Date>`now()`.as('created_at'),
    updatedAt: sql<Date>`now()`.as('updated_at'),
    erasedAt: sql<Date | null>`null::timestamptz`.as('erased_at'),
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
    // Added by hand: the directory takes it over only by writing to it (modules/scim).
    managedBy: sql<string | null>`null::text`.as('managed_by'),
    externalId: sql<string | null>`null::text`.as('external_id'),
    scimName: sql<null>`null::jsonb`.as('scim_name'),
  },
};

type Added = {
  person: { email: string | null; displayName: string | null } | null;
  added: Omit<MembershipWithUser, 'user'> | null;
};

/** A person as a membership shows them. */
export const PERSON = { id: users.id, email: users.email, displayName: users.displayName };

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
      .returning({ ...getTableColumns(tenantMemberships), status: statusOf().as('status') }),
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
      managedBy: added.managedBy,
      externalId: added.externalId,
      status: added.status,
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
      // An erased user is no one any more: not found, so never a member again under the pseudonym.
      .where(and(eq(users.id, sql.placeholder('userId')), isNull(users.erasedAt))),
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
