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

/** What a query boolean takes: a typed client's boolean, or the word it is sent as. */
export type QueryBooleanInput = boolean | 'true' | 'false';

const QUERY_BOOLEAN_WORDS: ReadonlyMap<unknown, boolean> = new Map([
  ['true', true],
  ['false', false],
]);

/**
 * `true` or `false` spelt out in the query string (z.coerce.boolean() would read "false", "0" or
 * "no" as true); typed clients may pass a boolean, which they send as those words. Nothing else:
 * not `1`/`0`, not `TRUE`, not the key twice.
 *
 * The words are read before the check, so the schema is a boolean, and so is the OpenAPI document's
 * parameter (`type: boolean`, which a query string spells `true`/`false`). A union of the boolean
 * and the words, as this was, became a `oneOf` that `true` matches twice once a validator reads the
 * query's text as the boolean it spells (Prism, any ajv with coerceTypes), and `oneOf` refuses a
 * value that matches twice: a validating client or gateway refused requests this server accepts.
 * z.preprocess types its input as unknown; it is declared as the words and booleans it takes.
 */
export const queryBoolean = z.preprocess(
  (value) => QUERY_BOOLEAN_WORDS.get(value) ?? value,
  z.boolean(),
) as z.ZodEffects<z.ZodBoolean, boolean, QueryBooleanInput>;

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
