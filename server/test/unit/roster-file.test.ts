import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRosterCsv } from '../../src/modules/rosters/roster-file.js';
import { chunked, codesOf, HEADER, readCsv, rowsOf } from './roster-sources.js';

describe('reading a roster CSV file', () => {
  it('reads the cells of the known columns, trimmed, with rows numbered from the header (row 1)', async () => {
    const file = await readCsv([HEADER, ' a@x.org , STUDENT ,Ann,Lee,2025-09-01,', 'b@x.org,,,,,']);
    expect(rowsOf(file)).toEqual([
      {
        row: 2,
        email: 'a@x.org',
        role: 'STUDENT',
        givenName: 'Ann',
        familyName: 'Lee',
        startsAt: '2025-09-01',
        endsAt: '',
      },
      { row: 3, email: 'b@x.org', role: '', givenName: '', familyName: '', startsAt: '', endsAt: '' },
    ]);
    expect([...file.columns]).toEqual(['email', 'role', 'givenName', 'familyName', 'startsAt', 'endsAt']);
    expect(file).toMatchObject({ errors: [], warnings: [], dataRows: 2, invalidRows: 0 });
  });

  it('matches header names whatever their case and surrounding spaces, and keeps their spelling', async () => {
    const file = await readCsv(['Email, ROLE ,givenname', 'a@x.org,teacher,Ann']);
    expect(rowsOf(file)).toEqual([{ row: 2, email: 'a@x.org', role: 'teacher', givenName: 'Ann' }]);
    expect(file.headerNames).toEqual({ email: 'Email', role: 'ROLE', givenName: 'givenname' });
    expect(file.columns.has('familyName')).toBe(false);
  });

  it('reads UTF-8 with a BOM, semicolons and CRLF line ends like the plain file', async () => {
    const plain = await readCsv(['email,givenName', 'a@x.org,Jérôme', 'b@x.org,"Lee, Jr."']);
    const bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('email;givenName\r\na@x.org;Jérôme\r\nb@x.org;"Lee, Jr."\r\n'),
    ]);
    for (const size of [1, 2, 5, 1000]) {
      const file = await readRosterCsv(chunked(bom, size));
      expect(file).toEqual(plain);
      expect(file.headerNames.email).toBe('email');
    }
  });

  it('takes the delimiter that splits the header into more fields, a comma on a tie', async () => {
    const semicolons = await readCsv(['email;role,x;givenName', 'a@x.org;1,2;Ann,Lee']);
    expect(rowsOf(semicolons)).toEqual([{ row: 2, email: 'a@x.org', givenName: 'Ann,Lee' }]);
    const tie = await readCsv(['email', 'a;b@x.org']);
    expect(rowsOf(tie)).toEqual([{ row: 2, email: 'a;b@x.org' }]);
    const quoted = await readCsv(['"email;x",email,role', '1,a@x.org,STUDENT']);
    expect(rowsOf(quoted)).toEqual([{ row: 2, email: 'a@x.org', role: 'STUDENT' }]);
  });

  it('reads quoted cells: doubled quotes, delimiters and line breaks inside', async () => {
    const file = await readCsv([
      'email,givenName,familyName',
      'a@x.org,"Ann ""Nan""","Lee, Jr."',
      'b@x.org,"Two',
      'lines",B',
      'c@x.org,"three\r\nlines\rin one",C',
      'd@x.org,D,D',
    ]);
    expect(rowsOf(file)).toEqual([
      { row: 2, email: 'a@x.org', givenName: 'Ann "Nan"', familyName: 'Lee, Jr.' },
      { row: 3, email: 'b@x.org', givenName: 'Two\nlines', familyName: 'B' },
      { row: 5, email: 'c@x.org', givenName: 'three\r\nlines\rin one', familyName: 'C' },
      { row: 8, email: 'd@x.org', givenName: 'D', familyName: 'D' },
    ]);
  });

  it('counts blank lines (and rows of empty cells) as rows, and skips them without an error', async () => {
    const file = await readCsv(['', HEADER, '', 'a@x.org,,,,,', ',,,,,', '   ', 'b@x.org,,,,,', '', '']);
    expect(rowsOf(file).map(({ row, email }) => [row, email])).toEqual([
      [4, 'a@x.org'],
      [7, 'b@x.org'],
    ]);
    expect(file).toMatchObject({ errors: [], dataRows: 2 });
  });

  it('ignores unknown columns, with one warning each on row 1', async () => {
    const file = await readCsv(['email,Grade,role,,grade', 'a@x.org,7,STUDENT,x,7']);
    expect(rowsOf(file)).toEqual([{ row: 2, email: 'a@x.org', role: 'STUDENT' }]);
    expect(codesOf(file.warnings)).toEqual([
      '1 Grade UNKNOWN_COLUMN',
      '1 - UNKNOWN_COLUMN',
      '1 grade UNKNOWN_COLUMN',
    ]);
    expect(file.warnings[0]?.message).toBe(
      'column "Grade" is ignored: the columns read are email, role, givenName, familyName, startsAt, endsAt, userId, guardianEmail, guardianRelationship',
    );
    expect(file.errors).toEqual([]);
  });

  it('needs an email column: without one, one MISSING_COLUMN error and no rows', async () => {
    const file = await readCsv(['e-mail,role', 'a@x.org,STUDENT', 'b@x.org,STUDENT']);
    expect(codesOf(file.errors)).toEqual(['1 email MISSING_COLUMN']);
    expect(file.rows).toEqual([]);
  });

  it('refuses a header that names a column twice (MALFORMED_CSV on row 1), and reads no rows', async () => {
    const file = await readCsv(['email,role,Role', 'a@x.org,STUDENT,TEACHER']);
    expect(codesOf(file.errors)).toEqual(['1 Role MALFORMED_CSV']);
    expect(file.errors[0]?.message).toBe('the header names role twice: keep one of the two columns');
    expect(file.rows).toEqual([]);
  });

  it('reads an empty file, a BOM alone, blank lines or a header alone as no rows, without an error', async () => {
    for (const input of ['', '\ufeff', '\n\n  \r\n', `${HEADER}`, `\ufeff${HEADER}\r\n`]) {
      const file = await readCsv(input);
      expect(file).toMatchObject({ rows: [], errors: [], warnings: [], dataRows: 0 });
    }
  });

  it('takes strings as well as bytes', async () => {
    async function* strings() {
      yield 'email,given';
      yield 'Name\na@x.org,Zoë\n';
    }
    expect(rowsOf(await readRosterCsv(strings()))).toEqual([{ row: 2, email: 'a@x.org', givenName: 'Zoë' }]);
  });

  it('reads the same whatever the chunks', async () => {
    const text = readFileSync(new URL('../../../docs/examples/roster.csv', import.meta.url));
    const whole = await readRosterCsv(chunked(text, text.length));
    expect(whole.rows).toHaveLength(12);
    for (const size of [1, 3, 64]) expect(await readRosterCsv(chunked(text, size))).toEqual(whole);
  });

  it('reports progress as data rows are read', async () => {
    const seen: number[] = [];
    const lines = [HEADER, ...Array.from({ length: 30 }, (_, i) => `u${i}@x.org,,,,,`)];
    await readCsv(lines, { onProgress: (rowsRead) => seen.push(rowsRead) }, 100);
    expect(seen.length).toBeGreaterThan(3);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(30);
  });
});
