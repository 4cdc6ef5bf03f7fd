import { SCIM_SCHEMA } from '@tms/contract';
import type { SQL } from 'drizzle-orm';
import { MAX_RESULTS } from './scim-discovery.js';
import { parseFilter } from './scim-filter.js';
import { type Attributes, filterSql } from './scim-filter.sql.js';
import { invalidValue } from './scim-values.js';

/** A list's query, as RFC 7644 §3.4.2 has it: a filter, 1-based `startIndex`, `count`. */
export type ListQuery = { filter?: string; startIndex?: string; count?: string };
export type ListPage = { where: SQL | undefined; offset: number; limit: number; startIndex: number };

const DEFAULT_COUNT = 100;

function integerOf(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^-?\d{1,9}$/.test(text.trim())) throw invalidValue(`${name} must be an integer`);
  return Number(text);
}

/**
 * The page a list asks for. A `startIndex` below 1 is 1 and a negative `count` is 0 (RFC 7644
 * §3.4.2.4); a `count` above MAX_RESULTS is MAX_RESULTS, as ServiceProviderConfig says.
 */
export function listPageOf(query: ListQuery, attributes: Attributes): ListPage {
  const startIndex = Math.max(1, integerOf(query.startIndex, 'startIndex') ?? 1);
  const limit = Math.min(MAX_RESULTS, Math.max(0, integerOf(query.count, 'count') ?? DEFAULT_COUNT));
  const where =
    query.filter === undefined || query.filter.trim() === ''
      ? undefined
      : filterSql(parseFilter(query.filter), attributes);
  return { where, offset: startIndex - 1, limit, startIndex };
}

export const listResponse = <T>(resources: T[], total: number, startIndex: number) => ({
  schemas: [SCIM_SCHEMA.listResponse],
  totalResults: total,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});
