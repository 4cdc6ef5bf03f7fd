/** A substring search as a LIKE pattern, its wildcards escaped: a search for "50%" means the characters. */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
