import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../src/errors/index.js';
import { readRosterJson } from '../../src/modules/rosters/roster-file.js';
import { checkRosterRows } from '../../src/modules/rosters/roster-rows.js';
import { codesOf, HEADER, readCsv, rowsOf } from './roster-sources.js';

describe('reading a roster sent as JSON', () => {
  it('numbers rows[i] as row i + 2, as if a header were row 1', () => {
    const file = readRosterJson({ rows: [{ email: 'a@x.org' }, { email: 'b@x.org', role: 'TEACHER' }] });
    expect(rowsOf(file)).toEqual([
      { row: 2, email: 'a@x.org' },
      { row: 3, email: 'b@x.org', role: 'TEACHER' },
    ]);
    expect([...file.columns]).toEqual(['email', 'role']);
    expect(file).toMatchObject({ errors: [], warnings: [], dataRows: 2, invalidRows: 0 });
  });

  it('matches keys as header names are matched, trims values, and reads null as an empty cell', () => {
    const file = readRosterJson({ rows: [{ ' EMAIL ': ' a@x.org ', givenname: 'Ann', endsAt: null }] });
    expect(rowsOf(file)).toEqual([{ row: 2, email: 'a@x.org', givenName: 'Ann', endsAt: '' }]);
    expect(file.headerNames).toEqual({ email: 'EMAIL', givenName: 'givenname', endsAt: 'endsAt' });
  });

  it('leaves a field alone for a row that leaves its key out', () => {
    const file = readRosterJson({ rows: [{ email: 'a@x.org', endsAt: '2026-07-01' }, { email: 'b@x.org' }] });
    const { rows } = checkRosterRows(file);
    expect(rows.map(({ endsAt }) => endsAt)).toEqual([new Date('2026-07-01T00:00:00Z'), undefined]);
  });

  it('checks like the same CSV file', async () => {
    const csv = await readCsv([HEADER, 'A@X.org,aide,Ann,Lee,2025-09-01,', 'nope,boss,,,2025-13-01,']);
    const json = readRosterJson({
      rows: [
        {
          email: 'A@X.org',
          role: 'aide',
          givenName: 'Ann',
          familyName: 'Lee',
          startsAt: '2025-09-01',
          endsAt: '',
        },
        { email: 'nope', role: 'boss', givenName: '', familyName: '', startsAt: '2025-13-01', endsAt: '' },
      ],
    });
    expect(checkRosterRows(json)).toEqual(checkRosterRows(csv));
  });

  it('ignores unknown keys, with one warning for each key however many rows have it', () => {
    const file = readRosterJson({
      rows: [
        { email: 'a@x.org', grade: '7' },
        { email: 'b@x.org', grade: '8', x: '' },
      ],
    });
    expect(codesOf(file.warnings)).toEqual(['1 grade UNKNOWN_COLUMN', '1 x UNKNOWN_COLUMN']);
    expect(rowsOf(file)).toEqual([
      { row: 2, email: 'a@x.org' },
      { row: 3, email: 'b@x.org' },
    ]);
  });

  it('needs an email key in some row: without one, one MISSING_COLUMN error and no rows', () => {
    const file = readRosterJson({ rows: [{ mail: 'a@x.org' }, { role: 'STUDENT' }] });
    expect(codesOf(file.errors)).toEqual(['1 email MISSING_COLUMN']);
    expect(file.rows).toEqual([]);
    expect(readRosterJson({ rows: [] })).toMatchObject({ rows: [], errors: [] });
  });

  it('refuses a row that gives a column twice', () => {
    const file = readRosterJson({ rows: [{ email: 'a@x.org', Email: 'b@x.org' }, { email: 'c@x.org' }] });
    expect(codesOf(file.errors)).toEqual(['2 email MALFORMED_CSV']);
    expect(rowsOf(file)).toEqual([{ row: 3, email: 'c@x.org' }]);
    expect(file.invalidRows).toBe(1);
  });

  it('throws PayloadTooLargeError past maxRows', () => {
    const rows = Array.from({ length: 11 }, (_, i) => ({ email: `u${i}@x.org` }));
    expect(readRosterJson({ rows: rows.slice(0, 10) }, { maxRows: 10 }).rows).toHaveLength(10);
    expect(() => readRosterJson({ rows }, { maxRows: 10 })).toThrow(PayloadTooLargeError);
  });
});
