import { describe, expect, it } from 'vitest';
import { CodeKeys } from '../../src/auth/code-keys.js';
import {
  canonicalRedeemableCode,
  displayRedeemableCode,
  newRedeemableCode,
  REDEEMABLE_CODE_ALPHABET,
} from '../../src/auth/redeemable-code.js';
import { RateLimitedError } from '../../src/errors/index.js';
import { CodeTries } from '../../src/rate-limit/code-tries.js';
import { RateLimiter } from '../../src/rate-limit/rate-limiter.js';

describe('redeemable codes', () => {
  it('draws 8 characters without look-alikes, all of the alphabet in time', () => {
    for (const lookAlike of '0O1IL5S2Z') expect(REDEEMABLE_CODE_ALPHABET).not.toContain(lookAlike);
    const seen = new Set<string>();
    for (let i = 0; i < 500; i += 1) {
      const code = newRedeemableCode();
      expect(code).toMatch(/^[A-Z0-9]{8}$/);
      for (const char of code) seen.add(char);
    }
    expect(seen.size).toBe(REDEEMABLE_CODE_ALPHABET.length);
  });

  it('accepts any case, one dash in the middle, spaces around; refuses anything else', () => {
    expect(canonicalRedeemableCode('abcd-efgh')).toBe('ABCDEFGH');
    expect(canonicalRedeemableCode(' ABCDEFGH ')).toBe('ABCDEFGH');
    expect(displayRedeemableCode('ABCDEFGH')).toBe('ABCD-EFGH');
    for (const bad of [
      'ABC-DEFGH',
      'ABCD--EFGH',
      'ABCDEFG',
      'ABCDEFGHJ',
      'ABCD0FGH',
      'ABCD EFGH',
      '',
      "A'CDEFGH",
    ]) {
      expect(canonicalRedeemableCode(bad)).toBeUndefined();
    }
  });
});

describe('code keys', () => {
  const keys = new CodeKeys('a secret of at least thirty-two bytes!!');

  it('looks up by an HMAC that depends on the secret and on the purpose', () => {
    const hash = keys.lookupHash('join', 'ABCDEFGH');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain('ABCDEFGH');
    expect(keys.lookupHash('join', 'ABCDEFGH')).toBe(hash);
    expect(keys.lookupHash('pairing', 'ABCDEFGH')).not.toBe(hash);
    expect(
      new CodeKeys('another secret of at least thirty-two bytes').lookupHash('join', 'ABCDEFGH'),
    ).not.toBe(hash);
  });

  it('seals a code that only the same secret and purpose open', () => {
    const sealed = keys.seal('join', 'ABCDEFGH');
    expect(sealed).not.toContain('ABCDEFGH');
    expect(keys.open('join', sealed)).toBe('ABCDEFGH');
    expect(keys.open('pairing', sealed)).toBeUndefined();
    expect(CodeKeys.ephemeral().open('join', sealed)).toBeUndefined();
    expect(keys.open('join', 'not sealed')).toBeUndefined();
  });
});

describe('code tries', () => {
  const db = {} as never;

  it('refuses once the caller or the address has spent its budget, with the window left', () => {
    const tries = new CodeTries(new RateLimiter(db, { max: 3, windowSeconds: 60 }, undefined, () => 30_000));
    for (let i = 0; i < 3; i += 1) tries.spend('alice', '127.0.0.1');
    expect(() => tries.spend('alice', '127.0.0.2')).toThrow(RateLimitedError);
    // Another caller from the spent address is refused too.
    expect(() => tries.spend('bob', '127.0.0.1')).toThrow(RateLimitedError);
    try {
      tries.spend('carol', '127.0.0.1');
    } catch (error) {
      expect((error as RateLimitedError).retryAfterSeconds).toBe(30);
    }
  });

  it('limits nothing when turned off', () => {
    const tries = CodeTries.create(db, 0);
    for (let i = 0; i < 100; i += 1) tries.spend('alice', '127.0.0.1');
  });
});
