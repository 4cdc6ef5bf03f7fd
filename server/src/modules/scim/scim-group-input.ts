import type { Filter } from './scim-filter.js';
import type { PatchOperation } from './scim-patch.js';
import { flatten, invalidValue, isObject, single, stringOf } from './scim-values.js';

/*
 * A SCIM Group as this service keeps it: its name, the directory's externalId, and its members
 * by the id SCIM gave each (a membership's id here).
 */

export type GroupInput = {
  displayName: string | undefined;
  externalId: string | null;
  members: string[] | undefined;
};

/** Member references: `[{ "value": "…" }]`, one object alone, or bare ids. */
export function memberIdsOf(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((member) => {
    const id = isObject(member) ? member.value : member;
    if (typeof id !== 'string') throw invalidValue('A member is { "value": "<user id>" }');
    return id;
  });
}

export function readGroup(body: unknown): GroupInput {
  if (!isObject(body)) throw invalidValue('A Group is a JSON object');
  const flat = flatten(body);
  return {
    displayName: stringOf(flat.get('displayname'), 'displayName') ?? undefined,
    externalId: stringOf(flat.get('externalid'), 'externalId') ?? null,
    members: flat.has('members') ? memberIdsOf(flat.get('members')) : undefined,
  };
}

/** What a PATCH does to a group, in order: its attributes, and its members by SCIM id. */
export type GroupStep =
  | { kind: 'set'; displayName?: string; externalId?: string | null }
  | { kind: 'members'; op: 'add' | 'remove' | 'replace'; ids: string[] | 'all' };

/** `members[value eq "id"]` (or `or` of several): the ids it names. */
function idsOfFilter(filter: Filter): string[] {
  if (filter.kind === 'or') return [...idsOfFilter(filter.left), ...idsOfFilter(filter.right)];
  // The path's filter is read on its own: its attribute is `value` (or, spelt out, `members.value`).
  const onValue = filter.kind === 'compare' && (filter.path === 'value' || filter.path === 'members.value');
  if (onValue && filter.op === 'eq' && typeof filter.value === 'string') return [filter.value];
  throw invalidValue('A member filter names members by value: members[value eq "<user id>"]');
}

function attributeStep(op: PatchOperation['op'], path: string, value: unknown): GroupStep | undefined {
  switch (path) {
    case 'displayname': {
      const name = stringOf(value, 'displayName');
      if (op === 'remove' || !name) throw invalidValue('A group keeps a displayName');
      return { kind: 'set', displayName: name };
    }
    case 'externalid':
      return { kind: 'set', externalId: op === 'remove' ? null : (stringOf(value, 'externalId') ?? null) };
    case 'members':
      if (op === 'remove')
        return {
          kind: 'members',
          op,
          ids: value === undefined || value === null ? 'all' : memberIdsOf(value),
        };
      return { kind: 'members', op, ids: memberIdsOf(value) };
    default:
      return undefined; // an attribute this service does not keep
  }
}

export function groupSteps(operations: PatchOperation[]): GroupStep[] {
  const steps: GroupStep[] = [];
  for (const { op, path, filter, value } of operations) {
    if (path === undefined) {
      for (const [key, attribute] of flatten(value as Record<string, unknown>)) {
        const step = attributeStep(op, key, attribute);
        if (step) steps.push(step);
      }
      continue;
    }
    if (filter && path === 'members') {
      // `members[value eq "id"]`: a remove takes those; a replace or add names them alike.
      const ids = idsOfFilter(filter);
      steps.push({ kind: 'members', op: op === 'remove' ? 'remove' : 'add', ids });
      continue;
    }
    const step = attributeStep(op, path, path === 'members' ? value : single(value));
    if (step) steps.push(step);
  }
  return steps;
}
