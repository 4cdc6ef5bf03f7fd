import { createHash, randomBytes } from 'node:crypto';

/*
 * A SCIM token is a random secret, not a JWT: a directory stores it as it is and sends it back
 * for years, and it must be revocable at once. Only its SHA-256 is stored (a hash of 256 random
 * bits needs no salt nor a slow hash: nothing to guess from it).
 */

const PREFIX = 'scim_';

export const newScimTokenSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64url')}`;

export const scimTokenHashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether a bearer value can be a SCIM token at all: anything else is refused without a look-up. */
export const looksLikeScimToken = (token: string): boolean =>
  token.startsWith(PREFIX) && token.length === PREFIX.length + 43;
