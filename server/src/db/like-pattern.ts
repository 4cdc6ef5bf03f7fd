/** The text with LIKE's wildcards (and its escape) escaped: a search for "50%" means the characters. */
const escaped = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A substring search as a LIKE pattern. */
export const likePattern = (q: string) => `%${escaped(q)}%`;

/** A LIKE pattern for text that starts, or ends, with `q` (SCIM's `sw`, `ew`). */
export const prefixPattern = (q: string) => `${escaped(q)}%`;
export const suffixPattern = (q: string) => `%${escaped(q)}`;

/** A LIKE pattern for exactly `q`: with ILIKE, equality but for case. */
export const wholePattern = (q: string) => escaped(q);
