import { PreconditionFailedError } from '../../errors/index.js';

/**
 * Whether an If-Match header admits the current version (RFC 9110 §13.1.1): absent or `*`, or a
 * list holding the strong tag `"<version>"`. If-Match compares strongly, so a weak tag (`W/"3"`)
 * never matches, and neither does anything that is not an entity tag.
 */
export function ifMatchAdmits(header: string | undefined, version: number): boolean {
  if (header === undefined || header.trim() === '*') return true;
  const current = etagOf(version);
  return header.split(',').some((tag) => tag.trim() === current);
}

/** Refuses a change to a resource that moved on since the caller read it. */
export function assertIfMatch(header: string | undefined, version: number): void {
  if (!ifMatchAdmits(header, version)) throw new PreconditionFailedError(version);
}

export const etagOf = (version: number) => `"${version}"`;
