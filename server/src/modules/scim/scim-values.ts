import { ScimError } from '../../errors/index.js';
import { attributePath } from './scim-filter.js';
import { storable } from './scim-text.js';

/*
 * How this service reads the values real directories send (each broke an open-source SCIM server
 * at some point): a single value wrapped in a one-element array, booleans as "True"/"False",
 * `null` for an attribute not set, attribute names in any case and with their schema's URN.
 */

export const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A single value, unwrapped from a one-element array. */
export const single = (value: unknown): unknown =>
  Array.isArray(value) && value.length === 1 ? value[0] : value;

/** A string attribute: undefined when absent, null when cleared (null or ""). */
export function stringOf(value: unknown, name: string): string | null | undefined {
  const one = single(value);
  if (one === undefined) return undefined;
  if (one === null) return null;
  if (typeof one === 'number') return String(one);
  if (typeof one !== 'string') throw invalidValue(`${name} must be a string`);
  // PostgreSQL refuses NUL in text, and a lone surrogate is no text: a 400 here, not a 500 there.
  if (!storable(one)) throw invalidValue(`${name} must be text without NUL characters`);
  const trimmed = one.trim();
  return trimmed === '' ? null : trimmed;
}

/** A boolean attribute: true, false, or the strings "true"/"false" in any case. */
export function booleanOf(value: unknown, name: string): boolean | undefined {
  const one = single(value);
  if (one === undefined || one === null) return undefined;
  if (typeof one === 'boolean') return one;
  if (typeof one === 'string' && /^(true|false)$/i.test(one.trim()))
    return one.trim().toLowerCase() === 'true';
  throw invalidValue(`${name} must be true or false`);
}

/**
 * An object's attributes by their lower-cased path, nested objects flattened one level
 * (`name.givenname`), keys' schema URNs dropped: `{ "urn:…:User:name.familyName": "Lovelace" }`
 * and `{ "name": { "familyName": "Lovelace" } }` read alike. Keys that are no attribute path
 * (an extension's, a typo's) are left out: a directory sends attributes we do not keep.
 */
export function flatten(object: Json): Map<string, unknown> {
  const flat = new Map<string, unknown>();
  for (const [key, value] of Object.entries(object)) {
    let path: string;
    try {
      path = attributePath(key);
    } catch {
      continue;
    }
    if (isObject(value) && !path.includes('.')) {
      for (const [subKey, subValue] of Object.entries(value)) {
        if (/^[a-z$][\w$-]*$/i.test(subKey)) flat.set(`${path}.${subKey.toLowerCase()}`, subValue);
      }
    }
    flat.set(path, value);
  }
  return flat;
}
