import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const SECRET = 'x'.repeat(32);

function errorLines(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines;
    throw error;
  }
  throw new Error('expected the configuration to be refused');
}

describe('configuration', () => {
  it('has working defaults: PGlite under .data, port 3000 on 127.0.0.1', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      port: 3000,
      host: '127.0.0.1',
      database: { kind: 'pglite', dataDir: '.data/pglite' },
      superAdminSubjects: [],
      logLevel: 'info',
    });
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/app', DATABASE_POOL_SIZE: '4' });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/app', poolSize: 4 });
  });

  it('behind a transaction pooler: DATABASE_POOLER=transaction, migrations through DATABASE_DIRECT_URL', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@pooler:6432/app',
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: 'postgres://u@db:5432/app',
    });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@pooler:6432/app',
      poolSize: 10,
      pooler: 'transaction',
      directUrl: 'postgres://u@db:5432/app',
    });
    expect(errorLines({ DATABASE_POOLER: 'session' })[0]).toMatch(/^DATABASE_POOLER:/);
    expect(errorLines({ DATABASE_DIRECT_URL: 'mysql://x' })[0]).toMatch(/^DATABASE_DIRECT_URL:/);
  });

  it('runs one process unless WEB_CONCURRENCY says more, and more only on PostgreSQL', () => {
    expect(loadConfig({}).webConcurrency).toBe(1);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/app', WEB_CONCURRENCY: '4' }).webConcurrency).toBe(4);
    expect(errorLines({ WEB_CONCURRENCY: '2' })).toEqual([
      'WEB_CONCURRENCY: more than one process needs PostgreSQL (DATABASE_URL): the embedded PGlite database belongs to one process (got "2")',
    ]);
    expect(errorLines({ DATABASE_URL: 'postgres://u@db/app', WEB_CONCURRENCY: '0' })[0]).toMatch(
      /^WEB_CONCURRENCY:/,
    );
  });

  it('splits SUPER_ADMIN_SUBJECTS and drops blanks', () => {
    expect(loadConfig({ SUPER_ADMIN_SUBJECTS: ' a, b ,,c ' }).superAdminSubjects).toEqual(['a', 'b', 'c']);
  });

  it('accepts port 0 (any free port)', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it('reports every bad variable on a line of its own', () => {
    const lines = errorLines({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      LOG_LEVEL: 'loud',
      AUTH_JWT_SECRET: 'short',
    });
    expect(lines).toHaveLength(4);
    expect(lines.find((l) => l.startsWith('PORT:'))).toContain('"eighty"');
    expect(lines.find((l) => l.startsWith('DATABASE_URL:'))).toContain('postgres://');
    expect(lines.find((l) => l.startsWith('LOG_LEVEL:'))).toBeDefined();
    const secretLine = lines.find((l) => l.startsWith('AUTH_JWT_SECRET:'));
    expect(secretLine).toContain('32 bytes');
    expect(secretLine).not.toContain('short');
  });

  it('refuses a port out of range', () => {
    expect(errorLines({ PORT: '70000' })[0]).toMatch(/^PORT:/);
  });

  it('refuses production without a secret or a JWKS', () => {
    expect(errorLines({ NODE_ENV: 'production' })[0]).toMatch(/^AUTH_JWT_SECRET: production needs/);
    expect(loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET }).auth.jwtSecret).toBe(SECRET);
    const jwks = { NODE_ENV: 'production', AUTH_JWKS_URL: 'https://idp/jwks' };
    expect(loadConfig({ ...jwks, CODE_SECRET: SECRET }).auth.jwksUrl).toBe('https://idp/jwks');
  });

  it('keeps codes under CODE_SECRET, which production needs when tokens come from a JWKS', () => {
    expect(errorLines({ NODE_ENV: 'production', AUTH_JWKS_URL: 'https://idp/jwks' })[0]).toMatch(
      /^CODE_SECRET: production with AUTH_JWKS_URL needs/,
    );
    expect(loadConfig({ CODE_SECRET: SECRET }).codeSecret).toBe(SECRET);
    expect(errorLines({ CODE_SECRET: 'short' })[0]).toMatch(/^CODE_SECRET: must be at least 32 bytes/);
    expect(loadConfig({}).codeTriesPerMinute).toBe(10);
  });

  it('refuses a secret and a JWKS together', () => {
    expect(errorLines({ AUTH_JWT_SECRET: SECRET, AUTH_JWKS_URL: 'https://idp/jwks' })[0]).toMatch(/not both/);
  });

  it('keeps an idle connection 5 s unless HTTP_KEEP_ALIVE_TIMEOUT_MS says otherwise, at least 2 s', () => {
    expect(loadConfig({}).keepAliveTimeoutMs).toBe(5000);
    expect(loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000' }).keepAliveTimeoutMs).toBe(65_000);
    for (const value of ['1999', '600001', '5s', '0']) {
      expect(errorLines({ HTTP_KEEP_ALIVE_TIMEOUT_MS: value }), value).toEqual([
        expect.stringMatching(new RegExp(`^HTTP_KEEP_ALIVE_TIMEOUT_MS: .+ \\(got "${value}"\\)$`)),
      ]);
    }
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', AUTH_JWT_SECRET: '' }).database.kind).toBe('pglite');
  });
});
