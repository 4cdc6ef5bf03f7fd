import { readFileSync } from 'node:fs';
import { RESPONSE_CODES } from '@tms/contract';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE_END, ERROR_TABLE_START, withErrorTable } from '../../src/openapi/error-table.js';

const committed = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  it('holds the table the contract generates (run `npm run docs:errors` after changing a code or a route)', () => {
    expect(committed).toBe(withErrorTable(committed));
  });

  it('lists every response code once, with its status', () => {
    const table = committed.slice(committed.indexOf(ERROR_TABLE_START), committed.indexOf(ERROR_TABLE_END));
    for (const code of RESPONSE_CODES) expect(table.split(`| \`${code}\` |`), code).toHaveLength(2);
  });

  it('refuses a document without its markers rather than guessing where the table goes', () => {
    expect(() => withErrorTable('# Errors\n')).toThrow(/error-table:start/);
  });
});
