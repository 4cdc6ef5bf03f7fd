import { z } from 'zod';

/**
 * Free text that will be stored or compared in the database. PostgreSQL refuses NUL in text, so
 * it is refused here, as a validation error, rather than reaching the database as a 500.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point
export const text = () => z.string().regex(/^[^\u0000]*$/, 'must not contain NUL characters');
