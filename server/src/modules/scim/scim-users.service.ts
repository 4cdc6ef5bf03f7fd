import type { Executor } from '../../db/database.js';
import { MembershipNotFoundError, ScimError, scimNotFound } from '../../errors/index.js';
import { canonicalEmail, emailIdentity } from '../../identity/email-address.js';
import { roleFromGroups } from '../../rules/directory-rules.js';
import { lastActiveOwnerProblem, reactivatedTerm, statusAt } from '../../rules/membership-rules.js';
import { isUuid } from '../../uuid.js';
import { studentsLeft } from '../guardians/guardian-links.service.js';
import {
  insertMembershipOfAddress,
  removeMembershipRow,
} from '../memberships/membership-changes.repository.js';
import { recordMembershipEvent } from '../memberships/membership-events.js';
import type { ForChange } from '../memberships/membership-target.sql.js';
import type { MembershipWithUser } from '../memberships/memberships.repository.js';
import { getForChange } from '../memberships/memberships.service.js';
import type { DirectoryRequest as ScimContext } from '../shared/directory-write.js';
import { assertIfMatch } from '../shared/if-match.js';
import { type ListQuery, listPageOf } from './scim-list.js';
import { readPatch } from './scim-patch.js';
import { userInputOf } from './scim-user.dto.js';
import { patchedUser, readUser, type UserInput } from './scim-user-input.js';
import {
  type DirectoryChange,
  findGroupsOfUsers,
  findRolesFromGroups,
  findScimName,
  findScimUser,
  listScimUsers,
  type ScimUserRow,
  USER_ATTRIBUTES,
  type UserGroup,
  writeDirectoryChange,
} from './scim-users.repository.js';

/*
 * SCIM Users are the tenant's memberships. Every change runs in the transaction that locks the
 * tenant (pipeline/directory-transaction.ts), reads the membership first, decides on the same
 * rules as a change by hand (the last ACTIVE OWNER), and only then writes, with its event.
 */

/** A change's outcome: the user as it now is, or a refusal that was recorded in the audit trail. */
export type UserOutcome = { user: ScimUserRow } | { refused: ScimError };

const SUSPENSION_REASON = "Deactivated by the tenant's directory (SCIM)";

export async function getScimUser({ db, directory }: ScimContext, id: string): Promise<ScimUserRow> {
  const row = isUuid(id) ? await findScimUser(db, directory.tenantId, id) : undefined;
  if (!row) throw scimNotFound(`User ${id}`);
  return row;
}

/** The address that names the person: userName when it is one, else the primary email. */
function addressOf(input: UserInput): string {
  for (const candidate of [input.userName, input.email]) {
    if (candidate !== undefined && emailIdentity(candidate)) return candidate;
  }
  throw new ScimError(400, 'invalidValue', 'userName (or a primary email) must be an email address');
}

const displayNameOf = (input: UserInput): string | null =>
  input.displayName ??
  input.name?.formatted ??
  ([input.name?.givenName, input.name?.familyName].filter(Boolean).join(' ') || null);

export async function createScimUser(context: ScimContext, body: unknown): Promise<UserOutcome> {
  const { db: tx, directory, audit } = context;
  const input = readUser(body);
  const email = emailIdentity(addressOf(input));
  if (!email) throw new Error('an address checked valid is not');
  const membership = {
    tenantId: directory.tenantId,
    email,
    role: 'STUDENT' as const,
    invitedDisplayName: null,
  };
  let inserted = await insertMembershipOfAddress(tx, membership);
  // Someone else's statement took the address meanwhile: a fresh statement sees its holder.
  if (!inserted.person) inserted = await insertMembershipOfAddress(tx, membership);
  const { person, added } = inserted;
  if (!person) throw new Error('the holder of an email address vanished while provisioning');
  if (!added) throw new ScimError(409, 'uniqueness', `${email.address} is already a member of this tenant`);
  const roles = await findRolesFromGroups(tx, directory.tenantId, [added.userId]);
  const now = new Date();
  const change: DirectoryChange = {
    role: roleFromGroups(added.role, roles.get(added.userId)),
    suspendedAt: input.active === false ? now : null,
    suspensionReason: input.active === false ? SUSPENSION_REASON : null,
    startsAt: null,
    endsAt: null,
    externalId: input.externalId,
    scimName: input.name,
    invitedDisplayName: displayNameOf(input),
  };
  const written = await writeDirectoryChange(tx, directory.tenantId, added.id, change);
  if (!written) throw new Error('a membership made under the tenant lock vanished');
  const after = { ...written, user: person };
  await recordMembershipEvent(tx, audit, 'membership.created', null, after);
  return { user: { ...after, scimName: input.name } };
}

async function forChange(tx: Executor, tenantId: string, id: string): Promise<ForChange> {
  if (!isUuid(id)) throw scimNotFound(`User ${id}`);
  try {
    return await getForChange(tx as never, tenantId, id);
  } catch (error) {
    if (error instanceof MembershipNotFoundError) throw scimNotFound(`User ${id}`);
    throw error;
  }
}

export async function replaceScimUser(
  context: ScimContext,
  id: string,
  body: unknown,
  ifMatch: string | undefined,
): Promise<UserOutcome> {
  const before = await forChange(context.db, context.directory.tenantId, id);
  assertIfMatch(ifMatch, before.version);
  return changeUser(context, before, readUser(body));
}

export async function patchScimUser(
  context: ScimContext,
  id: string,
  body: unknown,
  ifMatch: string | undefined,
): Promise<UserOutcome> {
  const operations = readPatch(body);
  const before = await forChange(context.db, context.directory.tenantId, id);
  assertIfMatch(ifMatch, before.version);
  const scimName = await findScimName(context.db, context.directory.tenantId, id);
  return changeUser(context, before, patchedUser(userInputOf({ ...before, scimName }), operations));
}

/** Records that the directory's change was refused by a rule, and answers the refusal. */
async function refusedChange(
  context: ScimContext,
  before: MembershipWithUser,
  detail: string,
): Promise<UserOutcome> {
  await recordMembershipEvent(context.db, context.audit, 'membership.directory_refused', before, before);
  return { refused: new ScimError(409, 'mutability', detail) };
}

const LAST_OWNER = "the tenant's last ACTIVE OWNER cannot be deactivated or deleted by the directory";

async function changeUser(context: ScimContext, before: ForChange, input: UserInput): Promise<UserOutcome> {
  const { db: tx, directory, audit } = context;
  const { tenantId } = directory;
  // userName, when it is an address, names the person: another one is another person. A change of
  // `emails` alone is not taken (the address shown stays the person's own).
  const given = input.userName;
  const current = before.user.email === null ? undefined : canonicalEmail(before.user.email);
  if (given !== undefined && emailIdentity(given) && canonicalEmail(given) !== current) {
    throw new ScimError(
      400,
      'mutability',
      "userName is the person's address: remove the user and create one",
    );
  }
  const roles = await findRolesFromGroups(tx, tenantId, [before.userId]);
  const role = roleFromGroups(before.role, roles.get(before.userId));
  const suspend = input.active === false && before.suspendedAt === null;
  const reactivate = input.active === true && before.status !== 'ACTIVE';
  const term = reactivate
    ? reactivatedTerm(before, before.now)
    : { startsAt: before.startsAt, endsAt: before.endsAt };
  const change: DirectoryChange = {
    role,
    suspendedAt: suspend ? before.now : reactivate ? null : before.suspendedAt,
    suspensionReason: suspend ? SUSPENSION_REASON : reactivate ? null : before.suspensionReason,
    ...term,
    externalId: input.externalId,
    scimName: input.name,
    invitedDisplayName: displayNameOf(input) ?? before.invitedDisplayName,
  };
  const seat = { role, status: statusAt({ ...change }, before.now) };
  if (lastActiveOwnerProblem(before, seat, before.owners ?? 0))
    return refusedChange(context, before, LAST_OWNER);
  const scimName = await findScimName(tx, tenantId, before.id);
  if (unchanged(before, scimName, change)) return { user: { ...before, scimName } };
  const written = await writeDirectoryChange(tx, tenantId, before.id, change);
  if (!written) throw new Error('a membership changed under the tenant lock vanished');
  const after = { ...written, user: before.user };
  const action =
    after.role !== before.role
      ? 'membership.role_changed'
      : suspend
        ? 'membership.suspended'
        : reactivate
          ? 'membership.reactivated'
          : 'membership.directory_updated';
  await recordMembershipEvent(tx, audit, action, before, after);
  return { user: { ...after, scimName: change.scimName } };
}

const sameDate = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** A sync that says what is already so changes nothing: no new version, no event. */
function unchanged(before: ForChange, scimName: unknown, change: DirectoryChange): boolean {
  return (
    before.managedBy === 'scim' &&
    before.role === change.role &&
    sameDate(before.suspendedAt, change.suspendedAt) &&
    sameDate(before.startsAt, change.startsAt) &&
    sameDate(before.endsAt, change.endsAt) &&
    before.externalId === change.externalId &&
    before.invitedDisplayName === change.invitedDisplayName &&
    JSON.stringify(scimName) === JSON.stringify(change.scimName)
  );
}

export async function removeScimUser(
  context: ScimContext,
  id: string,
  ifMatch: string | undefined,
): Promise<{ refused?: ScimError }> {
  const { db: tx, directory, audit } = context;
  const before = await forChange(tx, directory.tenantId, id);
  assertIfMatch(ifMatch, before.version);
  if (lastActiveOwnerProblem(before, undefined, before.owners ?? 0)) {
    const outcome = await refusedChange(context, before, LAST_OWNER);
    return 'refused' in outcome ? outcome : {};
  }
  await removeMembershipRow(tx, directory.tenantId, before.id);
  await recordMembershipEvent(tx, audit, 'membership.removed', before, null);
  await studentsLeft(tx, audit, directory.tenantId, [before]);
  return {};
}

/** A page of the tenant's memberships as Users, with the groups of each. */
export async function listScimUserPage({ db, directory }: ScimContext, query: ListQuery) {
  const page = listPageOf(query, USER_ATTRIBUTES);
  const { total, rows } = await listScimUsers(db, directory.tenantId, page.where, page);
  const groups = await findGroupsOfUsers(
    db,
    directory.tenantId,
    rows.map((row) => row.userId),
  );
  return { rows, total, groups, startIndex: page.startIndex };
}

export async function groupsOfScimUser(
  { db, directory }: ScimContext,
  row: ScimUserRow,
): Promise<UserGroup[]> {
  return findGroupsOfUsers(db, directory.tenantId, [row.userId]);
}
