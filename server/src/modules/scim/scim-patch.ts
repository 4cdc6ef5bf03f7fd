import { ScimError } from '../../errors/index.js';
import { attributePath, type Filter, parseFilter } from './scim-filter.js';
import { isObject, type Json } from './scim-values.js';

/*
 * A PatchOp (RFC 7644 §3.5.2) read into operations on lower-cased attribute paths, in the shapes
 * directories send: `op` in any case ("Replace"), no `path` with a value object of dotted or
 * schema-prefixed keys, a value filter in the path (`members[value eq "…"]`,
 * `emails[type eq "work"].value`).
 */

export type PatchOperation = {
  op: 'add' | 'replace' | 'remove';
  /** Lower-cased, without its schema; undefined: the value is an object of attributes. */
  path: string | undefined;
  /** The value filter of the path (`members[value eq "…"]`), if any. */
  filter: Filter | undefined;
  value: unknown;
};

const invalidPath = (detail: string) => new ScimError(400, 'invalidPath', detail);
const invalidSyntax = (detail: string) => new ScimError(400, 'invalidSyntax', detail);

/** `members[value eq "x"]`, `emails[type eq "work"].value`, or a plain path. */
function pathOf(text: string): { path: string; filter: Filter | undefined } {
  const open = text.indexOf('[');
  if (open === -1) return { path: attributePath(text.trim()), filter: undefined };
  const close = text.lastIndexOf(']');
  if (close < open) throw invalidPath(`"${text}" is not a path`);
  const attribute = attributePath(text.slice(0, open).trim());
  const rest = text.slice(close + 1).trim();
  const sub = rest.startsWith('.') ? `.${rest.slice(1).toLowerCase()}` : '';
  if (rest !== '' && sub === '') throw invalidPath(`"${text}" is not a path`);
  let filter: Filter;
  try {
    filter = parseFilter(text.slice(open + 1, close));
  } catch (error) {
    if (error instanceof ScimError) throw invalidPath(`"${text}": ${error.message}`);
    throw error;
  }
  return { path: `${attribute}${sub}`, filter };
}

export function readPatch(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw invalidSyntax('A PatchOp is a JSON object');
  const key = Object.keys(body).find((name) => name.toLowerCase() === 'operations');
  const operations = key === undefined ? undefined : (body as Json)[key];
  if (!Array.isArray(operations) || operations.length === 0)
    throw invalidSyntax('A PatchOp needs Operations: a non-empty array');
  return operations.map((operation, index) => {
    if (!isObject(operation)) throw invalidSyntax(`Operations[${index}] is not an object`);
    const fields = Object.fromEntries(Object.entries(operation).map(([k, v]) => [k.toLowerCase(), v]));
    const op = typeof fields.op === 'string' ? fields.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'replace' && op !== 'remove')
      throw invalidSyntax(`Operations[${index}].op must be add, replace or remove`);
    const rawPath = fields.path;
    if (rawPath !== undefined && rawPath !== null && typeof rawPath !== 'string')
      throw invalidPath(`Operations[${index}].path must be a string`);
    const hasPath = typeof rawPath === 'string' && rawPath.trim() !== '';
    if (!hasPath && op === 'remove') throw new ScimError(400, 'noTarget', 'A remove needs a path');
    if (!hasPath && !isObject(fields.value))
      throw invalidValue(`Operations[${index}]: without a path, the value is an object of attributes`);
    const { path, filter } = hasPath ? pathOf(rawPath as string) : { path: undefined, filter: undefined };
    return { op, path, filter, value: fields.value };
  });
}

const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);
