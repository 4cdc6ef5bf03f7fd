import { describe, expect, it } from 'vitest';
import { VerifiedTokens } from '../../src/auth/verified-tokens.js';

const claims = { sub: 'a', emailVerified: false };

describe('the verified-token cache', () => {
  it('keeps claims at most a minute, and never past the token expiry', () => {
    let now = 1_000_000;
    const cache = new VerifiedTokens(() => now);
    cache.set('long-lived', claims, now / 1000 + 3600);
    cache.set('short-lived', claims, now / 1000 + 10);
    now += 11_000;
    expect(cache.get('long-lived')).toBe(claims);
    expect(cache.get('short-lived')).toBeUndefined();
    now += 50_000;
    expect(cache.get('long-lived')).toBeUndefined();
  });

  it('does not keep an expired token, and knows only the exact token', () => {
    const cache = new VerifiedTokens(() => 5_000_000);
    cache.set('expired', claims, 4_000);
    expect(cache.get('expired')).toBeUndefined();
    cache.set('abc', claims, undefined);
    expect(cache.get('abd')).toBeUndefined();
    expect(cache.get('abc')).toBe(claims);
  });
});
