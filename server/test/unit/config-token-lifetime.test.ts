import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const maxLifetime = (value?: string) =>
  loadConfig(value === undefined ? {} : { AUTH_MAX_TOKEN_LIFETIME: value }).auth.maxTokenLifetimeSeconds;

describe('AUTH_MAX_TOKEN_LIFETIME', () => {
  it('defaults to 24 h, also when empty', () => {
    expect(maxLifetime()).toBe(86_400);
    expect(maxLifetime('')).toBe(86_400);
  });

  it('takes seconds, or a number with s, m, h or d', () => {
    expect(maxLifetime('3600')).toBe(3600);
    expect(maxLifetime('3600s')).toBe(3600);
    expect(maxLifetime('90m')).toBe(5400);
    expect(maxLifetime('24h')).toBe(86_400);
    expect(maxLifetime(' 12H ')).toBe(43_200);
    expect(maxLifetime('7d')).toBe(604_800);
  });

  it.each(['0', '-60', '1.5h', '24 hours', 'forever', '31d'])('refuses %j with one clear line', (value) => {
    let lines: string[] = [];
    try {
      loadConfig({ AUTH_MAX_TOKEN_LIFETIME: value });
    } catch (error) {
      if (error instanceof ConfigError) lines = error.lines;
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^AUTH_MAX_TOKEN_LIFETIME: must be .*\(got ".*"\)$/);
  });
});
