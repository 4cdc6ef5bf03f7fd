import type { CreateMembershipBody, ListMembershipsQuery, Role } from '@tms/contract';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Transaction } from '../../db/database.js';
import {
  MembershipAlreadyExistsError,
  MembershipNotFoundError,
  UserNotFoundError,
} from '../../errors/index.js';
import { emailIdentityOf } from '../../identity/email-address.js';
import {
  decodeCursor,
  decodeSortedCursor,
  encodeSortedCursor,
  type Page,
  toPage,
} from '../../pagination/cursor.js';
import { directoryManagedProblem } from '../../rules/directory-rules.js';
import { hierarchyProblem, lastActiveOwnerProblem } from '../../rules/membership-rules.js';
import { refuse } from '../../rules/problems.js';
import { studentsLeft } from '../guardians/guardian-links.service.js';
import { assertIfMatch } from '../shared/if-match.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import {
  findPersonToAdd,
  membershipAddition,
  newMembershipOf,
  type PersonToAdd,
} from './membership-additions.repository.js';
import { insertMembershipOfAddress, membershipRemoval } from './membership-changes.repository.js';
import { membershipEventStatement } from './membership-events.js';
import {
  countMemberships,
  type ListFilters,
  listMembershipsAs,
  listMembershipsSortedAs,
} from './membership-pages.repository.js';
import { type ForChange, findForChange } from './membership-target.sql.js';
import { findMembershipAs, type MembershipWithUser } from './memberships.repository.js';

/** The membership, within the tenant (the scope rule), or MEMBERSHIP_NOT_FOUND. */
export async function getMembership(
  db: Database,
  requester: Requester,
  membershipId: string,
): Promise<MembershipWithUser> {
  const tenantId = tenantIdOf(requester);
  const { items } = await readAsCaller(db, requester, (subject) =>
    findMembershipAs(db, subject, tenantId, membershipId),
  );
  const [membership] = items;
  if (!membership) throw new MembershipNotFoundError(membershipId);
  return membership;
}

const tenantIdOf = (requester: Requester): string => {
  if (requester.tenantId === undefined) throw new Error('a membership route without a tenant');
  return requester.tenantId;
};

export type MembershipPage = Page<MembershipWithUser> & { total?: number };

/**
 * A page of the tenant's members in the order asked for, read with the caller in one statement;
 * with includeTotal, how many match (one more statement, once access is granted).
 */
export async function listMembershipsPage(
  db: Database,
  requester: Requester,
  query: ListMembershipsQuery,
): Promise<MembershipPage> {
  const filters = { tenantId: tenantIdOf(requester), role: query.role, q: query.q, statuses: query.status };
  const page = await pageInOrder(db, requester, filters, query);
  if (!query.includeTotal) return page;
  return { ...page, total: await countMemberships(db, filters) };
}

async function pageInOrder(
  db: Database,
  requester: Requester,
  filters: ListFilters,
  query: ListMembershipsQuery,
): Promise<Page<MembershipWithUser>> {
  const limit = query.limit + 1;
  const { sort } = query;
  if (sort === 'createdAt') {
    const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
    const { items } = await readAsCaller(db, requester, (subject) =>
      listMembershipsAs(db, subject, { ...filters, afterId, limit }),
    );
    return toPage(items, query.limit);
  }
  const after = await parsedAfterAccess(db, requester, () => decodeSortedCursor(query.cursor, sort));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listMembershipsSortedAs(db, subject, { ...filters, sort, after, limit }),
  );
  return toPage(items, query.limit, (last) => encodeSortedCursor(sort, { key: last.sortKey, id: last.id }));
}

/**
 * Writes take the transaction their access was decided in (see pipeline/tenant-transaction.ts):
 * the tenant's row is locked, and `access` was read under that lock. Each decides on the rules
 * (rules/membership-rules.ts) before it changes anything: a refusal writes nothing. Changes that
 * keep the membership (role, term, suspension) are in membership-updates.service.ts.
 */
export async function createMembership(
  { tx, access, audit, pipeline }: TenantWrite,
  body: CreateMembershipBody,
  ahead: PersonToAdd | undefined,
): Promise<MembershipWithUser> {
  refuse(hierarchyProblem(access.level, body.role, 'give'));
  if ('userId' in body) {
    // Read with the lock (readPersonToAdd): decided before the change, the insert and its event
    // are one statement, sent with the COMMIT.
    if (!ahead) throw new UserNotFoundError(body.userId);
    if (ahead.member) throw new MembershipAlreadyExistsError();
    const created = {
      ...newMembershipOf(ahead, { tenantId: access.tenantId, role: body.role }),
      user: { email: ahead.email, displayName: ahead.displayName },
    };
    pipeline(
      membershipEventStatement(audit, 'membership.created', null, created, membershipAddition(created)),
    );
    return created;
  }
  const { person, added } = await addMember(tx, access.tenantId, body);
  if (!added || !person) throw new MembershipAlreadyExistsError();
  const created = { ...added, user: person };
  pipeline(membershipEventStatement(audit, 'membership.created', null, created));
  return created;
}

/**
 * What a POST by `userId` reads ahead, in the round trip that takes the tenant's lock: the user and
 * whether they are a member already. A POST by address reads nothing ahead: the person's row may
 * have to be made, and another tenant may be making it at the same moment, so it waits for its
 * insert (addMember).
 */
export async function readPersonToAdd(
  tx: Transaction,
  tenantId: string,
  { body }: { body: CreateMembershipBody },
): Promise<PersonToAdd | undefined> {
  return 'userId' in body ? findPersonToAdd(tx, tenantId, body.userId) : undefined;
}

async function addMember(
  tx: Transaction,
  tenantId: string,
  body: { role: Role; email: string; displayName?: string | undefined },
) {
  const { role } = body;
  const membership = {
    tenantId,
    role,
    email: emailIdentityOf(body.email, 'body.email'),
    invitedDisplayName: body.displayName ?? null,
  };
  const first = await insertMembershipOfAddress(tx, membership);
  if (first.person) return first;
  // Someone else's statement took the address meanwhile: this one, started later, sees its holder.
  const second = await insertMembershipOfAddress(tx, membership);
  if (!second.person) throw new Error('the holder of an email address vanished while inviting');
  return second;
}

export async function removeMembership(
  { access, audit, pipeline, tx }: TenantWrite,
  named: NamedMembership,
  ifMatch: string | undefined,
): Promise<void> {
  const before = existing(named);
  refuse(
    hierarchyProblem(access.level, before.role, 'remove'),
    directoryManagedProblem(before.managedBy, 'remove'),
  );
  assertIfMatch(ifMatch, before.version);
  refuse(lastActiveOwnerProblem(before, undefined, before.owners ?? 0));
  // The row was read under the tenant's lock, so the delete finds it: the delete and its event, one
  // statement, are not waited for, and reach PostgreSQL with the COMMIT (a failure rolls all back).
  // A student read as holding guardian ties has them revoked in the same round trip; any other
  // removal sends nothing more. Every round trip with the tenant locked is one more wait on this
  // process's event loop with the lock held: under a burst, that wait is what bounds the tenant's
  // writes a second.
  const remove = membershipRemoval(access.tenantId, before.id);
  pipeline(membershipEventStatement(audit, 'membership.removed', before, null, remove));
  await studentsLeft(tx, audit, access.tenantId, [before]);
}

/** The membership a change's URL names, and what it is under the tenant's lock (undefined: none here). */
export type NamedMembership = { id: string; found: ForChange | undefined };

/**
 * What a membership change reads ahead (pipeline/handlers.ts: tenantWriteOn), in the round trip
 * that locks the tenant: the membership as it is, within the tenant (the scope rule).
 */
export async function readNamedMembership(
  tx: Transaction,
  tenantId: string,
  { params }: { params: { tenantMembershipId: string } },
): Promise<NamedMembership> {
  const id = params.tenantMembershipId;
  return { id, found: await findForChange(tx, tenantId, id) };
}

/** The membership named, or MEMBERSHIP_NOT_FOUND. */
export function existing({ id, found }: NamedMembership): ForChange {
  if (!found) throw new MembershipNotFoundError(id);
  return found;
}

/** The membership to change, as it is under the tenant's lock, or MEMBERSHIP_NOT_FOUND. */
export async function getForChange(
  tx: Transaction,
  tenantId: string,
  membershipId: string,
): Promise<ForChange> {
  const found = await findForChange(tx, tenantId, membershipId);
  if (!found) throw new MembershipNotFoundError(membershipId);
  return found;
}
