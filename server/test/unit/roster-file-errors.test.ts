import { ROSTER_BYTES_MAX, ROSTER_ROWS_MAX } from '@tms/contract';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../src/errors/index.js';
import { readRosterCsv } from '../../src/modules/rosters/roster-file.js';
import { chunked, codesOf, readCsv, rowsOf } from './roster-sources.js';

const emails = (file: { rows: { row: number; cells: { email?: string } }[] }) =>
  file.rows.map(({ row, cells }) => `${row} ${cells.email}`);

describe('a broken roster file', () => {
  it('gives COLUMN_COUNT on a row with more or fewer cells than the header, and reads the others', async () => {
    const file = await readCsv([
      'email,role',
      'a@x.org,STUDENT',
      'b@x.org',
      'c@x.org,STUDENT,extra',
      'd@x.org,',
    ]);
    expect(codesOf(file.errors)).toEqual(['3 - COLUMN_COUNT', '4 - COLUMN_COUNT']);
    expect(file.errors[0]?.message).toBe(
      'this row has 1 cell, the header 2: quote a cell that holds a comma',
    );
    expect(emails(file)).toEqual(['2 a@x.org', '5 d@x.org']);
    expect(file).toMatchObject({ dataRows: 4, invalidRows: 2 });
  });

  it('gives UNCLOSED_QUOTE at the row where the quote opened, and reads nothing after it', async () => {
    const file = await readCsv([
      'email,givenName',
      'a@x.org,Ann',
      'b@x.org,"Bob',
      'c@x.org,Carl',
      'd@x.org,Dan',
    ]);
    expect(codesOf(file.errors)).toEqual(['3 givenName UNCLOSED_QUOTE']);
    expect(file.errors[0]?.message).toBe(
      'a quote opened in this row is never closed: write a quote inside a quoted cell as two ("")',
    );
    expect(emails(file)).toEqual(['2 a@x.org']);
  });

  it('numbers the unclosed quote by its first line when an earlier cell spans lines', async () => {
    const file = await readCsv(['email,givenName', '"a@x.org","Ann', 'Marie"', 'b@x.org,"Bob']);
    expect(codesOf(file.errors)).toEqual(['4 givenName UNCLOSED_QUOTE']);
    expect(emails(file)).toEqual(['2 a@x.org']);
  });

  it('gives an unclosed quote in the header as UNCLOSED_QUOTE on row 1', async () => {
    const file = await readCsv(['email,"role', 'a@x.org,STUDENT']);
    expect(codesOf(file.errors)).toEqual(['1 - UNCLOSED_QUOTE']);
    expect(file.rows).toEqual([]);
  });

  it('gives MALFORMED_CSV at the row csv-parse stops on, and reads nothing after it', async () => {
    const stray = await readCsv(['email,familyName', 'a@x.org,Lee', 'b@x.org,O"Brien', 'c@x.org,Carl']);
    expect(codesOf(stray.errors)).toEqual(['3 familyName MALFORMED_CSV']);
    expect(stray.errors[0]?.message).toBe(
      'a quote inside an unquoted cell: quote the cell and write a quote inside a quoted cell as two ("")',
    );
    expect(emails(stray)).toEqual(['2 a@x.org']);
    // A quote opened on row 3 runs on to row 5, where it is followed by text: the record began on 3.
    const after = await readCsv([
      'email,familyName',
      'a@x.org,Lee',
      'b@x.org,"Bob',
      'c@x.org,Carl',
      'd@x.org,"Dan"s',
    ]);
    expect(codesOf(after.errors)).toEqual(['3 familyName MALFORMED_CSV']);
    expect(after).toMatchObject({ dataRows: 2, invalidRows: 1 });
  });

  it('gives INVALID_UTF8 on every row with bytes that are not UTF-8, and reads the others', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('email,givenName,familyName\na@x.org,Ann,Lee\nb@x.org,J'),
      Buffer.from([0xe9]), // é in Latin-1
      Buffer.from('r'),
      Buffer.from([0xf4]),
      Buffer.from('me,Roy\nc@x.org,Zoë,Kay\nd@x.org,Dan,M'),
      Buffer.from([0xfc]),
      Buffer.from('ller\n'),
    ]);
    for (const size of [1, 4, 1000]) {
      const file = await readRosterCsv(chunked(latin1, size));
      expect(codesOf(file.errors)).toEqual(['3 givenName INVALID_UTF8', '5 familyName INVALID_UTF8']);
      expect(file.errors[0]?.message).toBe(
        'this row has bytes that are not UTF-8: save the file as "CSV UTF-8"',
      );
      expect(rowsOf(file)).toEqual([
        { row: 2, email: 'a@x.org', givenName: 'Ann', familyName: 'Lee' },
        { row: 4, email: 'c@x.org', givenName: 'Zoë', familyName: 'Kay' },
      ]);
    }
  });

  it('reads a U+FFFD written in UTF-8 as a character like any other, and a cut one as not UTF-8', async () => {
    const file = await readCsv(['email,givenName', 'a@x.org,Zo\ufffd', 'b@x.org,\u{1F600}']);
    expect(rowsOf(file)).toEqual([
      { row: 2, email: 'a@x.org', givenName: 'Zo\ufffd' },
      { row: 3, email: 'b@x.org', givenName: '\u{1F600}' },
    ]);
    const cut = await readRosterCsv(chunked(Buffer.from('email\na@x.org\n\u{1F600}').subarray(0, -1), 3));
    expect(codesOf(cut.errors)).toEqual(['3 email INVALID_UTF8']);
  });

  it('gives bytes that are not UTF-8 in the header as INVALID_UTF8 on row 1, and reads no rows', async () => {
    const file = await readRosterCsv(chunked(Buffer.from([0x65, 0xff, 0x2c, 0x0a, 0x61, 0x0a])));
    expect(codesOf(file.errors)).toEqual(['1 - INVALID_UTF8']);
    expect(file.rows).toEqual([]);
  });

  it('stops reading the source at a header it cannot use', async () => {
    const source = chunked(`e-mail,role\n${'a@x.org,STUDENT\n'.repeat(1000)}`, 64);
    const file = await readRosterCsv(source);
    expect(codesOf(file.errors)).toEqual(['1 email MISSING_COLUMN']);
    expect(source.pulled).toBe(1);
  });
});

describe('the limits of a roster file', () => {
  const lines = (count: number) => `email\n${'a@x.org\n'.repeat(count)}`;

  it('reads as many data rows as maxRows, and throws PayloadTooLargeError at one more, reading no further', async () => {
    expect((await readCsv(lines(10), { maxRows: 10 })).dataRows).toBe(10);
    const source = chunked(lines(1000), 16);
    const error = await readRosterCsv(source, { maxRows: 10 }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as Error).message).toBe('The request body is larger than the 10-row limit');
    expect(source.pulled).toBeLessThan(10);
  });

  it('counts neither the header nor blank lines against maxRows', async () => {
    const file = await readCsv(`\nemail\n\na@x.org\n\n\nb@x.org\n,\n`, { maxRows: 2 });
    expect(file.dataRows).toBe(2);
  });

  it('throws PayloadTooLargeError as soon as maxBytes is passed, reading no further', async () => {
    const text = lines(1000);
    expect((await readCsv(text, { maxBytes: text.length })).dataRows).toBe(1000);
    const source = chunked(text, 100);
    const error = await readRosterCsv(source, { maxBytes: 1024 }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as Error).message).toBe('The request body is larger than the 1024-byte limit');
    expect(source.pulled).toBe(11);
  });

  it('defaults to the contract limits: 50,000 rows and 10 MiB', async () => {
    expect((await readCsv(lines(ROSTER_ROWS_MAX), {}, 65_536)).dataRows).toBe(ROSTER_ROWS_MAX);
    const rows = await readCsv(lines(ROSTER_ROWS_MAX + 1), {}, 65_536).catch((thrown: unknown) => thrown);
    expect((rows as Error).message).toBe('The request body is larger than the 50,000-row limit');
    const big = Buffer.alloc(ROSTER_BYTES_MAX + 1, 0x20);
    const bytes = await readRosterCsv(chunked(big, 65_536)).catch((thrown: unknown) => thrown);
    expect((bytes as Error).message).toBe('The request body is larger than the 10 MiB limit');
  });
});
