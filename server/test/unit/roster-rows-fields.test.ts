import { describe, expect, it } from 'vitest';
import { readRosterCsv } from '../../src/modules/rosters/roster-file.js';
import { checkRosterRows } from '../../src/modules/rosters/roster-rows.js';
import { chunked, codesOf, HEADER, readCsv } from './roster-sources.js';

const check = async (lines: string[]) => checkRosterRows(await readCsv(lines));
const termOf = async (startsAt: string, endsAt = '') => {
  const { rows, errors } = await check(['email,startsAt,endsAt', `a@x.org,${startsAt},${endsAt}`]);
  return { term: rows[0] && [rows[0].startsAt, rows[0].endsAt], errors: codesOf(errors) };
};

describe('checking the dates, names and order of roster rows', () => {
  it('reads a date as midnight UTC, and a date and time with its offset', async () => {
    expect(await termOf('2024-02-29', '2025-07-01T08:30:00.250-04:00')).toEqual({
      term: [new Date('2024-02-29T00:00:00Z'), new Date('2025-07-01T12:30:00.250Z')],
      errors: [],
    });
    expect(await termOf('1970-01-01', '9999-12-31T23:59:59.999Z')).toMatchObject({ errors: [] });
  });

  it('reads an empty cell as null (cleared) and a missing column as undefined (left alone)', async () => {
    expect((await termOf('', '')).term).toEqual([null, null]);
    const { rows } = await check(['email,endsAt', 'a@x.org,2026-01-01']);
    expect([rows[0]?.startsAt, rows[0]?.endsAt]).toEqual([undefined, new Date('2026-01-01T00:00:00Z')]);
  });

  it('gives INVALID_DATE for anything else, and outside 1970-01-01..9999-12-31', async () => {
    const bad = [
      '2025-02-29',
      '2025-13-01',
      '2025-9-1',
      '01/09/2025',
      '2025-09-01T08:00:00',
      '2025-09-01 08:00:00Z',
      '2025-09-01T24:00:00Z',
      '1969-12-31',
      '1970-01-01T00:30:00+01:00',
      'tomorrow',
    ];
    for (const date of bad) expect((await termOf(date)).errors, date).toEqual(['2 startsAt INVALID_DATE']);
    const { errors } = await check(['email,endsAt', 'a@x.org,2025-02-30']);
    expect(errors[0]?.message).toBe(
      'endsAt must be a date (2025-09-01) or a date and time with its offset (2025-09-01T08:00:00+02:00), from 1970-01-01 to 9999-12-31',
    );
  });

  it('gives INVALID_TERM (on endsAt) when endsAt is not after startsAt', async () => {
    expect((await termOf('2025-09-01', '2025-09-01')).errors).toEqual(['2 endsAt INVALID_TERM']);
    expect((await termOf('2025-09-01T02:00:00+02:00', '2025-09-01')).errors).toEqual([
      '2 endsAt INVALID_TERM',
    ]);
    expect((await termOf('2025-09-02', '2025-09-01')).errors).toEqual(['2 endsAt INVALID_TERM']);
    expect((await termOf('2025-09-01', '2025-09-01T00:00:00.001Z')).errors).toEqual([]);
  });

  it('joins givenName and familyName into the display name, null when both are empty', async () => {
    const { rows } = await check(['email,givenName,familyName', 'a@x.org,Ann,', 'b@x.org,,Lee', 'c@x.org,,']);
    expect(rows.map(({ displayName }) => displayName)).toEqual(['Ann', 'Lee', null]);
    expect((await check(['email', 'a@x.org'])).rows[0]?.displayName).toBeNull();
  });

  it('gives INVALID_NAME for control characters, or a name longer than a display name may be', async () => {
    const { errors, rows } = await check([
      'email,givenName,familyName',
      'a@x.org,"Ann\nMarie",Lee',
      'b@x.org,Bob,"Tab\there"',
      `c@x.org,${'A'.repeat(100)},${'B'.repeat(99)}`,
      `d@x.org,${'A'.repeat(100)},${'B'.repeat(100)}`,
      `e@x.org,${'A'.repeat(201)},`,
      'f@x.org,"a\tb","c\u0085d"',
    ]);
    expect(codesOf(errors)).toEqual([
      '2 givenName INVALID_NAME',
      '4 familyName INVALID_NAME',
      '6 familyName INVALID_NAME',
      '7 givenName INVALID_NAME',
      '8 givenName INVALID_NAME',
      '8 familyName INVALID_NAME',
    ]);
    expect(errors[2]?.message).toBe('givenName and familyName must be at most 200 characters together');
    expect(rows.map(({ row }) => row)).toEqual([5]);
  });

  it("lists the file's and the rows' errors together, by row then column, named as the file names them", async () => {
    const { errors, invalidRows, rows } = await check([
      'EndsAt,Role,EMAIL,startsAt',
      '2025-01-01,boss,nope,2026-01-01',
      'x,y',
      'bad,STUDENT,a@x.org,',
      ',,b@x.org,',
    ]);
    expect(codesOf(errors)).toEqual([
      '2 EMAIL INVALID_EMAIL',
      '2 Role INVALID_ROLE',
      '2 EndsAt INVALID_TERM',
      '3 - COLUMN_COUNT',
      '4 EndsAt INVALID_DATE',
    ]);
    expect(invalidRows).toBe(3);
    expect(rows.map(({ row }) => row)).toEqual([5]);
  });

  it("reads and checks 50,000 rows (the time this takes is the test's duration)", async () => {
    const lines = [HEADER];
    for (let i = 0; i < 50_000; i++) {
      const role = i % 20 === 0 ? 'teacher' : 'STUDENT';
      lines.push(
        `pupil.${i}@school${i % 3}.example.org,${role},Given${i},"Family, ${i}",2025-09-01,2026-07-01T00:00:00Z`,
      );
    }
    const text = Buffer.from(`${lines.join('\r\n')}\r\n`);
    const file = await readRosterCsv(chunked(text, 65_536));
    const { rows, errors } = checkRosterRows(file);
    expect([rows.length, errors.length]).toEqual([50_000, 0]);
    expect(rows[49_999]).toMatchObject({ row: 50_001, displayName: 'Given49999 Family, 49999' });
  });
});
