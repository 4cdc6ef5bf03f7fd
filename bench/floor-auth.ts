import { createSecretKey } from 'node:crypto';
import { jwtVerify } from 'jose';

export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const MAX_ENTRIES = 10_000;
const MAX_AGE_MS = 60_000;

/**
 * A copy of the service's cache of verified tokens (server/src/auth/verified-tokens.ts; copied, not
 * imported, because server/dist ships no type declarations): keyed by the whole token, kept a
 * minute at most and never past `exp`, cleared when full. Without it the floor would pay for an
 * HMAC and a JSON parse on every request that the service skips.
 */
class VerifiedTokens<T> {
  private readonly entries = new Map<string, { claims: T; until: number }>();

  get(token: string): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.claims;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, claims: T, expiresAtSeconds: number | undefined): void {
    const until = Math.min(Date.now() + MAX_AGE_MS, (expiresAtSeconds ?? Number.POSITIVE_INFINITY) * 1000);
    if (until <= Date.now()) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(token, { claims, until });
  }
}

// As the service reads them: RFC 6750's b64token after a case-insensitive scheme.
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i;
const CLOCK_TOLERANCE_SECONDS = 5;
const MAX_LIFETIME_SECONDS = 24 * 3600;

/**
 * The subject of the request's bearer token, or 401: HS256 with the shared secret, `sub` and `exp`
 * required, as the service checks them (its optional name and email claims are not read: the
 * floor never writes a user). Unlike the service, it does not refuse a second Authorization header.
 */
export function subjectVerifier(secret: string): (authorization: string | undefined) => Promise<string> {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const verified = new VerifiedTokens<string>();
  return async (authorization) => {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (!token) throw new Refusal(401, 'UNAUTHENTICATED');
    const known = verified.get(token);
    if (known !== undefined) return known;
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['sub', 'exp'],
    }).catch(() => {
      throw new Refusal(401, 'UNAUTHENTICATED');
    });
    const { sub, exp = 0, iat } = payload;
    const now = Math.floor(Date.now() / 1000);
    const lifetime = iat !== undefined ? exp - iat : exp - now - CLOCK_TOLERANCE_SECONDS;
    if (
      typeof sub !== 'string' ||
      sub.length === 0 ||
      sub.length > 255 ||
      (iat !== undefined && iat > now + CLOCK_TOLERANCE_SECONDS) ||
      lifetime > MAX_LIFETIME_SECONDS
    )
      throw new Refusal(401, 'UNAUTHENTICATED');
    verified.set(token, sub, exp);
    return sub;
  };
}
