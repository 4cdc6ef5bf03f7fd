import { ValidationFailedError } from '../errors/index.js';
import { isUuid } from '../uuid.js';

const PREFIX = 'v1:';
const SORTED_PREFIX = 'v2:';

const notOurs = () =>
  new ValidationFailedError([
    { path: 'query.cursor', message: 'not a cursor this API gave out for this order' },
  ]);

/**
 * Cursors are opaque to clients so that the keyset behind them can change. In creation order the
 * key is the row's UUIDv7 id; in another order it is that order's value and the id, which breaks
 * ties, with the order's name, so that a cursor is never read in an order it was not made for.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`${PREFIX}${lastId}`).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith(PREFIX) ? decoded.slice(PREFIX.length) : '';
  if (!isUuid(id) || encodeCursor(id) !== cursor) throw notOurs();
  return id;
}

/** Where a page in some order ends: that order's value there (null sorts last), and the id. */
export type SortedPosition = { key: string | null; id: string };

export function encodeSortedCursor(sort: string, position: SortedPosition): string {
  return Buffer.from(`${SORTED_PREFIX}${JSON.stringify([sort, position.key, position.id])}`).toString(
    'base64url',
  );
}

export function decodeSortedCursor(cursor: string | undefined, sort: string): SortedPosition | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(SORTED_PREFIX)) throw notOurs();
  let parts: unknown;
  try {
    parts = JSON.parse(decoded.slice(SORTED_PREFIX.length));
  } catch {
    throw notOurs();
  }
  if (!Array.isArray(parts) || parts.length !== 3) throw notOurs();
  const [madeFor, key, id] = parts as unknown[];
  if (madeFor !== sort || !(key === null || typeof key === 'string') || typeof id !== 'string' || !isUuid(id))
    throw notOurs();
  if (encodeSortedCursor(sort, { key, id }) !== cursor) throw notOurs();
  return { key, id };
}

export type Page<T> = { items: T[]; nextCursor: string | null };

/** Rows are fetched with limit + 1: the extra row only says whether another page exists. */
export function toPage<T extends { id: string }>(
  rows: T[],
  limit: number,
  cursorOf: (last: T) => string = (last) => encodeCursor(last.id),
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}
