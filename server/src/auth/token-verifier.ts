import { createSecretKey } from 'node:crypto';
import { text } from '@tms/contract';
import {
  createRemoteJWKSet,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { z } from 'zod';
import { UnauthenticatedError } from '../errors/access-errors.js';
import { ServiceUnavailableError } from '../errors/server-errors.js';
import type { TokenClaims } from './token-claims.js';
import { VerifiedTokens } from './verified-tokens.js';

export type { TokenClaims } from './token-claims.js';

export type TokenVerifier = (token: string) => Promise<TokenClaims>;

type TokenRules = {
  issuer?: string;
  audience?: string;
  /** The longest lifetime (exp - iat) accepted; DEFAULT_MAX_LIFETIME_SECONDS if not given. */
  maxLifetimeSeconds?: number;
};

export type VerifierOptions = ({ secret: string } | { jwksUrl: string }) & TokenRules;

/** Bounded tolerance for clocks that drift between the identity provider and this server. */
export const CLOCK_TOLERANCE_SECONDS = 5;

const DEFAULT_MAX_LIFETIME_SECONDS = 24 * 3600;

/**
 * A lone surrogate (a JSON escape like \ud800 decodes to one) becomes U+FFFD on its way to the
 * database, so distinct subjects would collapse into one user. Same as String#isWellFormed (ES2024).
 */
const isWellFormed = (value: string) => !/\p{Cs}/u.test(value);

// Claims end up in the users table: no NUL (PostgreSQL refuses it), well-formed, bounded lengths.
// A bad subject refuses the token; a bad optional claim is ignored.
const ClaimsSchema = z.object({
  sub: text().min(1).max(255).refine(isWellFormed),
  email: text().max(254).refine(isWellFormed).optional().catch(undefined),
  email_verified: z.boolean().optional().catch(undefined),
  name: text().max(200).refine(isWellFormed).optional().catch(undefined),
});

export function createTokenVerifier(options: VerifierOptions): TokenVerifier {
  const common = {
    issuer: options.issuer,
    audience: options.audience,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    // Without exp a token, once leaked, is good forever.
    requiredClaims: ['sub', 'exp'],
  };
  const maxLifetime = options.maxLifetimeSeconds ?? DEFAULT_MAX_LIFETIME_SECONDS;
  const verify =
    'secret' in options
      ? (() => {
          const key = createSecretKey(Buffer.from(options.secret, 'utf8'));
          return (token: string) => jwtVerify(token, key, { ...common, algorithms: ['HS256'] });
        })()
      : (() => {
          const remote = createRemoteJWKSet(new URL(options.jwksUrl), {
            timeoutDuration: 3000,
            cooldownDuration: 30_000,
          });
          // Only "no such key" is the token's fault; a JWKS that cannot be fetched, does not answer
          // in time, or answers an error or garbage is the identity provider's: 503, not 401.
          const keys: JWTVerifyGetKey = async (header, token) => {
            try {
              return await remote(header, token);
            } catch (error) {
              if (
                error instanceof joseErrors.JWKSNoMatchingKey ||
                error instanceof joseErrors.JWKSMultipleMatchingKeys ||
                error instanceof joseErrors.JOSENotSupported
              ) {
                throw error;
              }
              throw new ServiceUnavailableError('The identity provider cannot be reached');
            }
          };
          return (token: string) => jwtVerify(token, keys, { ...common, algorithms: ['RS256', 'ES256'] });
        })();

  const verified = new VerifiedTokens();
  return async (token) => {
    const known = verified.get(token);
    if (known) return known;
    let payload: JWTPayload;
    try {
      ({ payload } = await verify(token));
    } catch (error) {
      throw translateJoseError(error);
    }
    checkLifetime(payload, maxLifetime);
    const parsed = ClaimsSchema.safeParse(payload);
    if (!parsed.success) throw new UnauthenticatedError('The token has no usable subject');
    const claims = {
      sub: parsed.data.sub,
      email: parsed.data.email,
      emailVerified: parsed.data.email_verified === true,
      name: parsed.data.name,
    };
    verified.set(token, claims, payload.exp);
    return claims;
  };
}

/**
 * An expiry bounds how long a leaked token is good for, only if it is not years away. jose has
 * checked that exp is present and a number, and iat a number if present.
 */
function checkLifetime(payload: JWTPayload, maxSeconds: number): void {
  const now = Math.floor(Date.now() / 1000);
  const { exp = 0, iat } = payload;
  // jose checks iat in the future only alongside maxTokenAge, which would make iat required.
  if (iat !== undefined && iat > now + CLOCK_TOLERANCE_SECONDS) {
    throw new UnauthenticatedError('The token was issued in the future (iat)');
  }
  // Without iat the lifetime is unknown: what is left of it must fit (with the issuer's clock ahead).
  const lifetime = iat !== undefined ? exp - iat : exp - now - CLOCK_TOLERANCE_SECONDS;
  if (lifetime > maxSeconds) {
    throw new UnauthenticatedError(`The token's lifetime exceeds the maximum of ${maxSeconds} seconds`);
  }
}

function translateJoseError(error: unknown): Error {
  if (error instanceof ServiceUnavailableError) return error;
  if (error instanceof joseErrors.JWKSTimeout) {
    return new ServiceUnavailableError('The identity provider did not answer in time');
  }
  if (error instanceof joseErrors.JWTExpired) return new UnauthenticatedError('The token has expired');
  if (
    error instanceof joseErrors.JWTClaimValidationFailed &&
    error.claim === 'exp' &&
    error.reason === 'missing'
  ) {
    return new UnauthenticatedError('The token has no expiry (exp)');
  }
  if (error instanceof joseErrors.JOSEError) return new UnauthenticatedError('The token is not valid');
  // A JWKS that cannot be fetched at all (DNS, refused connection) surfaces as a plain fetch error.
  if (error instanceof TypeError)
    return new ServiceUnavailableError('The identity provider cannot be reached');
  return new UnauthenticatedError('The token is not valid');
}
