/**
 * Whether an If-Match header admits the current version. Accepts `*`, a list, weak tags and,
 * leniently, a bare number.
 */
export function ifMatchAdmits(header: string | undefined, version: number): boolean {
  if (header === undefined || header.trim() === '*') return true;
  return header
    .split(',')
    .map((tag) =>
      tag
        .trim()
        .replace(/^W\//, '')
        .replace(/^"(.*)"$/, '$1'),
    )
    .includes(String(version));
}

export const etagOf = (version: number) => `"${version}"`;
