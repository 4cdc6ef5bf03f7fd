import { readFileSync } from 'node:fs';
import { AUDIT_ACTION_NAMES } from '@tms/contract';
import { describe, expect, it } from 'vitest';
import { withAuditCatalogue } from '../../src/openapi/audit-catalogue.js';

const committed = readFileSync(new URL('../../../docs/audit.md', import.meta.url), 'utf8');

describe('docs/audit.md', () => {
  it('holds the catalogue the contract generates (run `npm run docs:audit` after changing AUDIT_ACTIONS)', () => {
    expect(committed).toBe(withAuditCatalogue(committed));
  });

  it('lists every action once', () => {
    for (const action of AUDIT_ACTION_NAMES)
      expect(committed.split(`| \`${action}\` |`), action).toHaveLength(2);
  });
});
