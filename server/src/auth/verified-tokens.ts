import type { TokenClaims } from './token-claims.js';

const MAX_ENTRIES = 10_000;
const MAX_AGE_MS = 60_000;

/**
 * Claims of tokens verified a moment ago. A client sends the same token with every request, and
 * verifying it is the costliest CPU step of a request. Keyed by the whole token, so a token that
 * differs by one bit is verified afresh; kept at most a minute, and never past the token's `exp`.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { claims: TokenClaims; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(token: string): TokenClaims | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.claims;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, claims: TokenClaims, expiresAtSeconds: number | undefined): void {
    const until = Math.min(this.now() + MAX_AGE_MS, (expiresAtSeconds ?? Number.POSITIVE_INFINITY) * 1000);
    if (until <= this.now()) return;
    // Bounded: when full, start over rather than track recency on the hot path.
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(token, { claims, until });
  }
}
