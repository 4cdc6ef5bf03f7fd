import { ValidationFailedError } from '../errors/index.js';
import { isUuid } from '../uuid.js';

const PREFIX = 'v1:';

/**
 * Cursors are opaque to clients so that the keyset behind them can change. Today the key is the
 * row's UUIDv7 id, which is its creation order.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`${PREFIX}${lastId}`).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith(PREFIX) ? decoded.slice(PREFIX.length) : '';
  if (!isUuid(id) || encodeCursor(id) !== cursor) {
    throw new ValidationFailedError([{ path: 'query.cursor', message: 'not a cursor this API gave out' }]);
  }
  return id;
}

export type Page<T> = { items: T[]; nextCursor: string | null };

/** Rows are fetched with limit + 1: the extra row only says whether another page exists. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}
