import { type SQL, sql } from 'drizzle-orm';
import { likePattern, prefixPattern, suffixPattern, wholePattern } from '../../db/like-pattern.js';
import { ScimError } from '../../errors/index.js';
import { canonicalEmail } from '../../identity/email-address.js';
import { isUuid } from '../../uuid.js';
import type { Comparison, Filter, FilterValue } from './scim-filter.js';

/*
 * A parsed filter (scim-filter.ts) as a SQL condition: every value a parameter, every LIKE
 * pattern escaped (db/like-pattern.ts). Each resource says which attribute is which column, and
 * how it compares: an email by its canonical form (identity/email-address.ts), text without
 * regard to case unless the RFC makes it case-exact (externalId), ids only as UUIDs (a filter on
 * an id that is none of ours matches nothing).
 */

export type AttributeKind = 'email' | 'text' | 'exactText' | 'uuid' | 'boolean' | 'date';
/** `shown`: for an email, the address as given, which co/sw/ew search (eq compares `column`, the canonical form). */
export type Attribute = { column: SQL; kind: AttributeKind; shown?: SQL };
export type Attributes = Record<string, Attribute>;

const invalid = (detail: string) => new ScimError(400, 'invalidFilter', detail);

const textOf = (path: string, value: FilterValue): string => {
  if (typeof value !== 'string') throw invalid(`${path} compares with a string`);
  return value;
};

const NOTHING = sql`false`;

function likeOf(column: SQL, op: 'co' | 'sw' | 'ew', value: string, exact: boolean): SQL {
  const pattern =
    op === 'co' ? likePattern(value) : op === 'sw' ? prefixPattern(value) : suffixPattern(value);
  return exact ? sql`${column} like ${pattern}` : sql`${column} ilike ${pattern}`;
}

function ordered(column: SQL, op: Comparison, value: SQL): SQL {
  const symbol = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' }[op as 'eq'];
  if (!symbol) throw new Error(`no order for ${op}`);
  return sql`${column} ${sql.raw(symbol)} ${value}`;
}

function compare(path: string, attribute: Attribute, op: Comparison, value: FilterValue): SQL {
  const { column, kind } = attribute;
  if (value === null) {
    if (op === 'eq') return sql`${column} is null`;
    if (op === 'ne') return sql`${column} is not null`;
    throw invalid(`${path} ${op} null compares nothing`);
  }
  if (op === 'ne') return sql`not coalesce(${compare(path, attribute, 'eq', value)}, false)`;
  switch (kind) {
    case 'email': {
      const text = textOf(path, value);
      if (op === 'eq') {
        const canonical = canonicalEmail(text);
        return canonical === undefined ? NOTHING : sql`${column} = ${canonical}`;
      }
      if (op === 'co' || op === 'sw' || op === 'ew')
        return likeOf(attribute.shown ?? column, op, text, false);
      throw invalid(`${path} compares with eq, ne, co, sw, ew`);
    }
    case 'text':
    case 'exactText': {
      const text = textOf(path, value);
      const exact = kind === 'exactText';
      if (op === 'co' || op === 'sw' || op === 'ew') return likeOf(column, op, text, exact);
      // Case-insensitive equality as ILIKE without wildcards: one rule for eq and co alike.
      // Equal but for case: ILIKE without a wildcard (no lower(): see identity/email-address.ts).
      if (op === 'eq' && !exact) return sql`${column} ilike ${wholePattern(text)}`;
      return ordered(column, op, sql`${text}`);
    }
    case 'uuid': {
      const text = textOf(path, value);
      if (op !== 'eq') throw invalid(`${path} compares with eq or ne`);
      return isUuid(text) ? sql`${column} = ${text}::uuid` : NOTHING;
    }
    case 'boolean': {
      const flag = typeof value === 'string' ? value.toLowerCase() : value;
      if (op !== 'eq' || (flag !== true && flag !== false && flag !== 'true' && flag !== 'false'))
        throw invalid(`${path} compares with eq true or eq false`);
      return flag === true || flag === 'true' ? column : sql`not ${column}`;
    }
    case 'date': {
      const text = textOf(path, value);
      if (Number.isNaN(Date.parse(text))) throw invalid(`${path} compares with a date`);
      if (op === 'co' || op === 'sw' || op === 'ew')
        throw invalid(`${path} compares with eq, gt, ge, lt, le`);
      return ordered(column, op, sql`${new Date(text).toISOString()}::timestamptz`);
    }
  }
}

function attributeOf(attributes: Attributes, path: string): Attribute {
  const attribute = attributes[path];
  if (!attribute) throw invalid(`Filtering on "${path}" is not supported`);
  return attribute;
}

/** The filter as a condition on the resource's row. */
export function filterSql(filter: Filter, attributes: Attributes): SQL {
  switch (filter.kind) {
    case 'and':
      return sql`(${filterSql(filter.left, attributes)} and ${filterSql(filter.right, attributes)})`;
    case 'or':
      return sql`(${filterSql(filter.left, attributes)} or ${filterSql(filter.right, attributes)})`;
    case 'not':
      return sql`not coalesce(${filterSql(filter.filter, attributes)}, false)`;
    case 'present': {
      const { column, kind } = attributeOf(attributes, filter.path);
      return kind === 'text' || kind === 'exactText' || kind === 'email'
        ? sql`coalesce(${column} <> '', false)`
        : sql`${column} is not null`;
    }
    case 'compare':
      return sql`coalesce(${compare(filter.path, attributeOf(attributes, filter.path), filter.op, filter.value)}, false)`;
  }
}
