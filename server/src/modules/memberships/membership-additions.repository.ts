import type { Role } from '@tms/contract';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantMemberships, users } from '../../db/schema.js';
import { statusAt } from '../../rules/membership-rules.js';
import { type Change, recordedWith } from '../audit/audit-events.repository.js';
import { PERSON } from './membership-changes.repository.js';
import { TENANT } from './membership-target.sql.js';
import type { MembershipWithUser } from './memberships.repository.js';

/*
 * A membership added by `userId` (POST): the person read ahead with the tenant's lock, the row as
 * it will be, and its INSERT, which the tenant write sends with the COMMIT. By address, see
 * membership-changes.repository.ts (insertMembershipOfAddress).
 */

/** The person a membership by `userId` would be of, read ahead under the tenant's lock. */
export type PersonToAdd = {
  id: string;
  email: string | null;
  displayName: string | null;
  /** Whether they are a member of the tenant already (in any status). */
  member: boolean;
  /** The transaction's time: what the membership's timestamps will read. */
  now: Date;
};

const personToAdd = preparedPer((db) =>
  db
    .select({
      ...PERSON,
      member: sql<boolean>`exists (select 1 from ${tenantMemberships} where ${and(
        eq(tenantMemberships.tenantId, TENANT),
        eq(tenantMemberships.userId, users.id),
      )})`.mapWith(Boolean),
      now: sql<Date>`now()`.mapWith((value: string | Date) => new Date(value)),
    })
    .from(users)
    // An erased user is no one any more: not found, so never a member again under the pseudonym.
    .where(and(eq(users.id, sql.placeholder('userId')), isNull(users.erasedAt)))
    .prepare('person_to_add'),
);

/** The user, unless erased, and whether they already are a member here; undefined: no such user. */
export async function findPersonToAdd(
  db: Executor,
  tenantId: string,
  userId: string,
): Promise<PersonToAdd | undefined> {
  const [row] = await personToAdd(db).execute({ tenantId, userId });
  return row;
}

/**
 * A new membership of a person read under the tenant's lock (findPersonToAdd), as its row will be:
 * ACTIVE and open-ended, at its first version, stamped with the transaction's time (which `now()`
 * in its INSERT reads too).
 */
export function newMembershipOf(
  person: PersonToAdd,
  membership: { tenantId: string; role: Role },
): Omit<MembershipWithUser, 'user'> {
  const standing = { startsAt: null, endsAt: null, suspendedAt: null };
  return {
    id: uuidv7(),
    tenantId: membership.tenantId,
    userId: person.id,
    role: membership.role,
    invitedDisplayName: null,
    version: tenantMemberships.version.default as number,
    createdAt: person.now,
    updatedAt: person.now,
    ...standing,
    suspensionReason: null,
    managedBy: null,
    externalId: null,
    status: statusAt(standing, person.now),
  };
}

const ADD = recordedWith(
  'add_membership',
  sql`insert into ${tenantMemberships} (id, tenant_id, user_id, role) values (${sql.placeholder('id')}::uuid, ${TENANT}::uuid, ${sql.placeholder('userId')}::uuid, ${sql.placeholder('role')}::membership_role)`,
);

/**
 * Inserts that membership. A tenant write pipelines it inside its audit event's statement
 * (auditEventStatement's `change`): under the tenant's lock, nobody adds the person meanwhile, so
 * it cannot conflict; were it to fail, the transaction rolls back.
 */
export const membershipAddition = (membership: Omit<MembershipWithUser, 'user'>): Change => ({
  kind: ADD,
  values: {
    id: membership.id,
    tenantId: membership.tenantId,
    userId: membership.userId,
    role: membership.role,
  },
});
