import { fingerprintSync, loadModule } from 'libpg-query';
import { beforeAll, expect, test } from 'vitest';
import { scopeViolations } from '../sql-scope/analyse.js';
import { crossTenantStatements } from '../sql-scope/cross-tenant.js';
import { schemaTables } from '../sql-scope/scoped-tables.js';

beforeAll(() => loadModule());

// An entry the check would pass anyway hides nothing today, but would hide the next statement of
// its shape: each must still need its place (and name a known reason, which loading checks).
test('every cross-tenant entry is a statement the check refuses, listed once', () => {
  const tables = schemaTables();
  const entries = crossTenantStatements();
  for (const entry of entries) {
    expect(scopeViolations(entry.sql, tables), `${entry.source}: ${entry.sql}`).not.toEqual([]);
    expect(entry.source, entry.sql).toMatch(/^(src|test)\/\S+\.ts(:\d+)?$/);
  }
  const fingerprints = entries.map((entry) => fingerprintSync(entry.sql));
  expect(new Set(fingerprints).size).toBe(fingerprints.length);
});
