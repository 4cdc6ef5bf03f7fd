import { z } from 'zod';

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

export const pageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGE_SIZE_MAX)
    .default(PAGE_SIZE_DEFAULT)
    .describe(`How many items per page, 1 to ${PAGE_SIZE_MAX} (default ${PAGE_SIZE_DEFAULT})`),
  cursor: z.string().min(1).max(1000).optional().describe('The `meta.nextCursor` of the previous page'),
};

/**
 * `true` or `false` spelt out in the query string (z.coerce.boolean() would read "false" as true);
 * typed clients may pass a boolean, which they send as those words.
 */
export const queryBoolean = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .transform((value) => value === true || value === 'true');

/**
 * A free-text filter: case-insensitive substring, of printable text (no control characters: the
 * server's search index keeps a member's fields one per line, and a line break would join two).
 */
export const searchQuery = z
  .string()
  .trim()
  .min(1)
  .max(200)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters (NUL, line breaks, …)');
