import { z } from 'zod';

/**
 * The body of an action (resend, revoke, accept, decline, cancel, reactivate, restore): none, or
 * `{}`. Anything in it is refused rather than ignored, so a client that believes it sent options
 * learns it did not.
 */
export const EmptyBodySchema = z
  .object({})
  .strict()
  .optional()
  .describe('No body, or `{}`: this action takes no options');
