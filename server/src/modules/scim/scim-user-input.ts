import type { Filter } from './scim-filter.js';
import type { PatchOperation } from './scim-patch.js';
import type { ScimName } from './scim-users.repository.js';
import { booleanOf, flatten, invalidValue, isObject, type Json, single, stringOf } from './scim-values.js';

/*
 * A SCIM User as this service keeps it: what a POST or a PUT says, and what a PATCH changes. The
 * person's address is `userName` (or, when that is no address, the primary email), their name
 * parts, the directory's `externalId`, and whether the membership is `active`.
 */

export type UserInput = {
  userName: string | undefined;
  /** The first address of `emails` (the primary one first): the address when userName is none. */
  email: string | undefined;
  externalId: string | null;
  /** undefined: not said (Okta's full PUT without `active` keeps the user as it is). */
  active: boolean | undefined;
  displayName: string | null;
  name: ScimName | null;
};

const NAME_PARTS = ['givenName', 'familyName', 'formatted'] as const;

function emailOf(value: unknown): string | undefined {
  const list = Array.isArray(value) ? value : [value];
  // Keys in any case: Microsoft's reference client sends "Primary".
  const emails = list
    .filter(isObject)
    .map((email) =>
      Object.fromEntries(Object.entries(email).map(([key, part]) => [key.toLowerCase(), part])),
    );
  const chosen = emails.find((email) => booleanOf(email.primary, 'emails.primary') === true) ?? emails[0];
  return chosen ? (stringOf(chosen.value, 'emails.value') ?? undefined) : undefined;
}

function nameOf(flat: Map<string, unknown>): ScimName | null {
  const name: ScimName = {};
  for (const part of NAME_PARTS) {
    const value = stringOf(flat.get(`name.${part.toLowerCase()}`), `name.${part}`);
    if (value) name[part] = value;
  }
  return Object.keys(name).length > 0 ? name : null;
}

/** A POST's or PUT's body. */
export function readUser(body: unknown): UserInput {
  if (!isObject(body)) throw invalidValue('A User is a JSON object');
  const flat = flatten(body);
  return {
    userName: stringOf(flat.get('username'), 'userName') ?? undefined,
    email: emailOf(flat.get('emails')),
    externalId: stringOf(flat.get('externalid'), 'externalId') ?? null,
    active: booleanOf(flat.get('active'), 'active'),
    displayName: stringOf(flat.get('displayname'), 'displayName') ?? null,
    name: nameOf(flat),
  };
}

/** One attribute set by a PATCH, on the state it changes. */
function setAttribute(state: UserInput, path: string, value: unknown): void {
  switch (path) {
    case 'username':
      state.userName = stringOf(value, 'userName') ?? undefined;
      return;
    case 'externalid':
      state.externalId = stringOf(value, 'externalId') ?? null;
      return;
    case 'active':
      state.active = booleanOf(value, 'active') ?? state.active;
      return;
    case 'displayname':
      state.displayName = stringOf(value, 'displayName') ?? null;
      return;
    case 'name': {
      if (value === null) state.name = null;
      else if (isObject(single(value))) {
        for (const [key, part] of Object.entries(single(value) as Json))
          setAttribute(state, `name.${key.toLowerCase()}`, part);
      } else throw invalidValue('name must be an object');
      return;
    }
    case 'emails':
    case 'emails.value':
      state.email =
        (path === 'emails' ? emailOf(value) : (stringOf(value, 'emails.value') ?? undefined)) ?? state.email;
      return;
    default: {
      const part = NAME_PARTS.find((name) => `name.${name.toLowerCase()}` === path);
      if (!part) return; // an attribute this service does not keep (an extension's): left as is
      const text = stringOf(value, path);
      const name: ScimName = { ...state.name };
      if (text) name[part] = text;
      else delete name[part];
      state.name = Object.keys(name).length > 0 ? name : null;
    }
  }
}

/** Only `emails[type eq "work"]`-like filters on our one address: any other filter targets nothing we keep. */
const onOurAddress = (filter: Filter | undefined) =>
  filter === undefined ||
  (filter.kind === 'compare' && ['emails.type', 'emails.primary'].includes(filter.path));

/** The user after a PATCH's operations, in order. */
export function patchedUser(before: UserInput, operations: PatchOperation[]): UserInput {
  const state: UserInput = { ...before, name: before.name && { ...before.name } };
  for (const { op, path, filter, value } of operations) {
    if (path === undefined) {
      for (const [key, attribute] of flatten(value as Json)) {
        if (!(key === 'name' && isObject(attribute)))
          setAttribute(state, key, op === 'remove' ? null : attribute);
      }
      continue;
    }
    if (!onOurAddress(filter)) continue;
    if (op === 'remove') {
      // Removing `active` says nothing; removing the address would leave no person.
      if (path !== 'active' && path !== 'username' && !path.startsWith('emails'))
        setAttribute(state, path, null);
      continue;
    }
    setAttribute(state, path, value);
  }
  return state;
}
