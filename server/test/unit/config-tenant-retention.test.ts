import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const refusal = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines;
    throw error;
  }
  throw new Error('expected the configuration to be refused');
};

describe('TENANT_RETENTION_DAYS and TENANT_PURGE_INTERVAL_MINUTES', () => {
  it('default to 30 days of retention and a purge every 60 minutes', () => {
    expect(loadConfig({}).tenants).toEqual({ retentionDays: 30, purgeIntervalMinutes: 60 });
  });

  it('take whole numbers; an interval of 0 turns the purge in the server off', () => {
    expect(loadConfig({ TENANT_RETENTION_DAYS: '7', TENANT_PURGE_INTERVAL_MINUTES: '0' }).tenants).toEqual({
      retentionDays: 7,
      purgeIntervalMinutes: 0,
    });
  });

  it.each([
    ['TENANT_RETENTION_DAYS', '0'],
    ['TENANT_RETENTION_DAYS', '3651'],
    ['TENANT_RETENTION_DAYS', '1.5'],
    ['TENANT_RETENTION_DAYS', 'a month'],
    ['TENANT_PURGE_INTERVAL_MINUTES', '-1'],
    ['TENANT_PURGE_INTERVAL_MINUTES', '10081'],
  ])('refuse %s=%s with one line naming the variable', (name, value) => {
    const lines = refusal({ [name]: value });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${name}: .+ \\(got "${value}"\\)$`));
  });
});
