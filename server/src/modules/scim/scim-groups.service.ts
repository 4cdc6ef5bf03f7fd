import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import { ScimError, scimNotFound } from '../../errors/index.js';
import { isUuid } from '../../uuid.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import type { DirectoryRequest as ScimContext } from '../shared/directory-write.js';
import { assertIfMatch } from '../shared/if-match.js';
import { syncDirectoryRoles } from './directory-roles.js';
import { toScimGroupSummary } from './scim-group.dto.js';
import { type GroupStep, groupSteps, readGroup } from './scim-group-input.js';
import {
  addGroupMembers,
  deleteGroup,
  findGroup,
  findGroupIdNamed,
  findMembersOfGroups,
  findMemberUserIds,
  findUsersOfMemberships,
  GROUP_ATTRIBUTES,
  type GroupMember,
  type GroupRow,
  insertGroup,
  listGroups,
  removeGroupMembers,
  updateGroup,
} from './scim-groups.repository.js';
import { type ListQuery, listPageOf } from './scim-list.js';
import { readPatch } from './scim-patch.js';
import { invalidValue } from './scim-values.js';

/*
 * SCIM Groups: a directory's groups, whose members get the role the tenant's admins mapped to the
 * group (directory-roles.ts). Every change runs under the tenant's lock, writes its members in a
 * statement or two whatever their number, gives the people whose groups changed their role, and
 * records its event.
 */

export async function getScimGroup({ db, directory }: ScimContext, id: string): Promise<GroupRow> {
  const row = isUuid(id) ? await findGroup(db, directory.tenantId, id) : undefined;
  if (!row) throw scimNotFound(`Group ${id}`);
  return row;
}

async function assertNameFree(
  tx: Executor,
  tenantId: string,
  displayName: string,
  self?: string,
): Promise<void> {
  const holder = await findGroupIdNamed(tx, tenantId, displayName);
  if (holder !== undefined && holder !== self)
    throw new ScimError(409, 'uniqueness', `A group named "${displayName}" exists already`);
}

/** The people that SCIM ids name in the tenant; an id of nobody here is refused, not skipped. */
async function peopleOf(tx: Executor, tenantId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const known = await findUsersOfMemberships(tx, tenantId, unique.filter(isUuid));
  const unknown = unique.find((id) => !known.has(id));
  if (unknown !== undefined) throw invalidValue(`Member ${unknown} is no User of this tenant`);
  return [...known.values()];
}

async function recordGroupEvent(
  tx: Executor,
  audit: AuditContext,
  action: AuditAction,
  before: { row: GroupRow; count: number } | null,
  after: { row: GroupRow; count: number } | null,
): Promise<void> {
  const group = (after ?? before)?.row;
  if (!group) throw new Error('a group event without a group');
  await recordAuditEvent(tx, {
    tenantId: group.tenantId,
    action,
    target: { type: 'scim_group', id: group.id },
    before: before && toScimGroupSummary(before.row, before.count),
    after: after && toScimGroupSummary(after.row, after.count),
    context: audit,
  });
}

export async function createScimGroup(
  { db: tx, directory, audit }: ScimContext,
  body: unknown,
): Promise<GroupRow> {
  const input = readGroup(body);
  if (!input.displayName) throw invalidValue('A group needs a displayName');
  await assertNameFree(tx, directory.tenantId, input.displayName);
  const people = await peopleOf(tx, directory.tenantId, input.members ?? []);
  const row = await insertGroup(tx, {
    tenantId: directory.tenantId,
    displayName: input.displayName,
    externalId: input.externalId,
  });
  // A new group gives no role until the tenant's admins map one: its members' roles stay.
  await addGroupMembers(tx, row.id, people);
  await recordGroupEvent(tx, audit, 'scim_group.created', null, { row, count: people.length });
  return row;
}

/** The group after its change: its attributes, and who is in it (people, by user id). */
type GroupState = { displayName: string; externalId: string | null; people: Set<string> };

async function changeGroup(context: ScimContext, before: GroupRow, state: GroupState): Promise<GroupRow> {
  const { db: tx, directory, audit } = context;
  const was = new Set(await findMemberUserIds(tx, before.id));
  const added = [...state.people].filter((person) => !was.has(person));
  const removed = [...was].filter((person) => !state.people.has(person));
  const renamed = state.displayName !== before.displayName || state.externalId !== before.externalId;
  if (!renamed && added.length === 0 && removed.length === 0) return before;
  if (state.displayName !== before.displayName)
    await assertNameFree(tx, directory.tenantId, state.displayName, before.id);
  await addGroupMembers(tx, before.id, added);
  await removeGroupMembers(tx, before.id, removed);
  const after = await updateGroup(tx, directory.tenantId, before.id, {
    displayName: state.displayName,
    externalId: state.externalId,
    role: before.role,
  });
  await syncDirectoryRoles(tx, directory.tenantId, audit, [...added, ...removed]);
  await recordGroupEvent(
    tx,
    audit,
    'scim_group.updated',
    { row: before, count: was.size },
    { row: after, count: state.people.size },
  );
  return after;
}

async function forChange(context: ScimContext, id: string, ifMatch: string | undefined): Promise<GroupRow> {
  const before = await getScimGroup(context, id);
  assertIfMatch(ifMatch, before.version);
  return before;
}

export async function replaceScimGroup(
  context: ScimContext,
  id: string,
  body: unknown,
  ifMatch: string | undefined,
): Promise<GroupRow> {
  const input = readGroup(body);
  const before = await forChange(context, id, ifMatch);
  const { tenantId } = context.directory;
  const people =
    input.members === undefined
      ? new Set(await findMemberUserIds(context.db, before.id))
      : new Set(await peopleOf(context.db, tenantId, input.members));
  return changeGroup(context, before, {
    displayName: input.displayName ?? before.displayName,
    externalId: input.externalId,
    people,
  });
}

export async function patchScimGroup(
  context: ScimContext,
  id: string,
  body: unknown,
  ifMatch: string | undefined,
): Promise<GroupRow> {
  const steps = groupSteps(readPatch(body));
  const before = await forChange(context, id, ifMatch);
  const { tenantId } = context.directory;
  const named = steps.flatMap((step) => (step.kind === 'members' && step.ids !== 'all' ? step.ids : []));
  const people = await findUsersOfMemberships(context.db, tenantId, [...new Set(named)].filter(isUuid));
  const state: GroupState = {
    displayName: before.displayName,
    externalId: before.externalId,
    people: new Set(await findMemberUserIds(context.db, before.id)),
  };
  for (const step of steps) applyStep(state, step, people);
  return changeGroup(context, before, state);
}

function applyStep(state: GroupState, step: GroupStep, people: Map<string, string>): void {
  if (step.kind === 'set') {
    if (step.displayName !== undefined) state.displayName = step.displayName;
    if (step.externalId !== undefined) state.externalId = step.externalId;
    return;
  }
  if (step.ids === 'all') {
    state.people.clear();
    return;
  }
  const named = step.ids.map((id) => {
    const person = people.get(id);
    // Removing someone who is not there changes nothing (RFC 7644 §3.5.2.2); adding nobody is an error.
    if (person === undefined && step.op !== 'remove')
      throw invalidValue(`Member ${id} is no User of this tenant`);
    return person;
  });
  if (step.op === 'replace') state.people.clear();
  for (const person of named) {
    if (person === undefined) continue;
    if (step.op === 'remove') state.people.delete(person);
    else state.people.add(person);
  }
}

export async function removeScimGroup(
  context: ScimContext,
  id: string,
  ifMatch: string | undefined,
): Promise<void> {
  const { db: tx, directory, audit } = context;
  const before = await forChange(context, id, ifMatch);
  const people = await findMemberUserIds(tx, before.id);
  await deleteGroup(tx, directory.tenantId, before.id);
  await syncDirectoryRoles(tx, directory.tenantId, audit, people);
  await recordGroupEvent(tx, audit, 'scim_group.deleted', { row: before, count: people.length }, null);
}

/** A page of the tenant's groups, with their members unless the directory leaves them out. */
export async function listScimGroupPage(
  { db, directory }: ScimContext,
  query: ListQuery,
  withMembers: boolean,
) {
  const page = listPageOf(query, GROUP_ATTRIBUTES);
  const { total, rows } = await listGroups(db, directory.tenantId, page.where, page);
  const members = withMembers
    ? await findMembersOfGroups(
        db,
        directory.tenantId,
        rows.map((row) => row.id),
      )
    : [];
  return { rows, total, members, startIndex: page.startIndex };
}

export async function membersOfScimGroup(
  { db, directory }: ScimContext,
  row: GroupRow,
): Promise<GroupMember[]> {
  return findMembersOfGroups(db, directory.tenantId, [row.id]);
}
