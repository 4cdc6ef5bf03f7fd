import { readFileSync } from 'node:fs';
import { emptyRosterSummary } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantFixture, type TenantFixture, unique } from '../support/factories.js';
import {
  answerOf,
  csvOf,
  importOf,
  membersOf,
  postCsv,
  postRows,
  type RosterServer,
  startRosterServer,
} from './import-helpers.js';

/** What files an import reads, and what it makes of them, over HTTP: issue 15's file rules. */
let h: RosterServer;
beforeAll(async () => {
  h = await startRosterServer();
});
afterAll(() => h?.close());

const SAMPLE = readFileSync(new URL('../../../docs/examples/roster.csv', import.meta.url));

async function tenant(): Promise<TenantFixture> {
  return createTenantFixture(h);
}

describe('the sample file (docs/examples/roster.csv)', () => {
  it('imports: every row a new member, with its role, names and dates', async () => {
    const t = await tenant();
    const { status, body } = await answerOf(await postCsv(h, t.tenantId, SAMPLE, { token: t.owner.token }));
    expect(status, JSON.stringify(body)).toBe(200);
    const lines = SAMPLE.toString('utf8').trim().split('\n').length - 1;
    expect(body.data).toMatchObject({
      status: 'SUCCEEDED',
      mode: 'add',
      dryRun: false,
      progress: { rowsRead: lines, rowsTotal: lines },
      summary: { ...emptyRosterSummary(), create: lines },
      errors: [],
      warnings: [],
      failure: null,
    });
    const members = await membersOf(h.db, t.tenantId);
    expect(members).toHaveLength(lines + 1);
    const anna = members.find((m) => m.email === 'anna.lindqvist@riverside.example.org');
    // OneRoster `aide` is a TEACHER; a date-time with an offset is kept as the instant it names.
    expect(anna).toMatchObject({ role: 'TEACHER', startsAt: new Date('2025-09-01T06:00:00Z') });
    const liam = members.find((m) => m.email === 'liam.obrien@riverside.example.org');
    expect(liam?.invitedDisplayName).toBe("Liam O'Brien, Jr.");
    // GET finds it, as it was answered.
    const got = await importOf(h, t.tenantId, body.data.importId, t.owner.token);
    expect(got).toEqual({ status: 200, body: { success: true, data: body.data } });
  });
});

describe('CSV dialects', () => {
  it('reads a BOM, semicolons, header names in any case, and OneRoster roles', async () => {
    const t = await tenant();
    const p = unique('dialect');
    const csv = `\uFEFF${csvOf('EMAIL; Role ;GivenName', `${p}-a@example.test;administrator;A`, `${p}-b@example.test;Teacher;B`, `${p}-c@example.test;aide;C`, `${p}-d@example.test;STUDENT;D`)}`;
    const { status, body } = await answerOf(await postCsv(h, t.tenantId, csv, { token: t.owner.token }));
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.summary).toMatchObject({ create: 4, invalid: 0 });
    const roles = Object.fromEntries((await membersOf(h.db, t.tenantId)).map((m) => [m.email, m.role]));
    expect(roles).toMatchObject({
      [`${p}-a@example.test`]: 'ADMIN',
      [`${p}-b@example.test`]: 'TEACHER',
      [`${p}-c@example.test`]: 'TEACHER',
      [`${p}-d@example.test`]: 'STUDENT',
    });
  });

  it('ignores unknown columns and lists each as a warning', async () => {
    const t = await tenant();
    const csv = csvOf('email,role,homeroom,shoeSize', `${unique('w')}@example.test,student,5B,42`);
    const { status, body } = await answerOf(await postCsv(h, t.tenantId, csv, { token: t.owner.token }));
    expect(status).toBe(200);
    expect(body.data.summary.create).toBe(1);
    expect(body.data.warnings).toEqual([
      expect.objectContaining({ row: 1, column: 'homeroom', code: 'UNKNOWN_COLUMN' }),
      expect.objectContaining({ row: 1, column: 'shoeSize', code: 'UNKNOWN_COLUMN' }),
    ]);
  });

  it('takes JSON rows as it takes CSV rows: rows[i] is row i + 2', async () => {
    const t = await tenant();
    const rows = [
      { email: `${unique('j')}@example.test`, role: 'teacher', givenName: 'Jo' },
      { email: 'not-an-address', role: 'STUDENT' },
    ];
    const refused = await answerOf(await postRows(h, t.tenantId, rows, { token: t.owner.token }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ path: 'rows[3].email', row: 3, column: 'email', code: 'INVALID_EMAIL' }),
    ]);
    const { status, body } = await answerOf(
      await postRows(h, t.tenantId, rows.slice(0, 1), { token: t.owner.token }),
    );
    expect(status).toBe(200);
    expect(body.data.summary).toMatchObject({ create: 1, invalid: 0 });
  });
});

/** A refused file: 409 ROSTER_INVALID, its errors as details, nothing changed, the import recorded. */
async function refusedWith(t: TenantFixture, csv: string | Buffer) {
  const before = await membersOf(h.db, t.tenantId);
  const { status, body } = await answerOf(await postCsv(h, t.tenantId, csv, { token: t.owner.token }));
  expect(status, JSON.stringify(body)).toBe(409);
  expect(body.error.code).toBe('ROSTER_INVALID');
  expect(await membersOf(h.db, t.tenantId)).toEqual(before);
  return body.error.details as {
    path: string;
    row: number;
    column: string | null;
    code: string;
    message: string;
  }[];
}

describe('malformed files: every error on its row, nothing applied', () => {
  it('an unclosed quote, at the row where it opened', async () => {
    const t = await tenant();
    const csv = csvOf(
      'email,givenName',
      `${unique('q')}@example.test,Ann`,
      `${unique('q')}@example.test,"Bob`,
      'x@example.test,Cy',
    );
    expect(await refusedWith(t, csv)).toEqual([
      expect.objectContaining({ row: 3, code: 'UNCLOSED_QUOTE', path: expect.stringMatching(/^rows\[3\]/) }),
    ]);
  });

  it('rows with too many or too few cells, the other rows still checked', async () => {
    const t = await tenant();
    const csv = csvOf(
      'email,role',
      `${unique('c')}@example.test,student,extra`,
      `${unique('c')}@example.test`,
      'bad,student',
    );
    const details = await refusedWith(t, csv);
    expect(details.map(({ row, code }) => ({ row, code }))).toEqual([
      { row: 2, code: 'COLUMN_COUNT' },
      { row: 3, code: 'COLUMN_COUNT' },
      { row: 4, code: 'INVALID_EMAIL' },
    ]);
  });

  it('bytes that are not UTF-8', async () => {
    const t = await tenant();
    const csv = Buffer.concat([
      Buffer.from(`email,givenName\n${unique('u')}@example.test,`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('\n'),
    ]);
    expect(await refusedWith(t, csv)).toEqual([expect.objectContaining({ row: 2, code: 'INVALID_UTF8' })]);
  });

  it('a formula in an address is an invalid address; in a name it is text', async () => {
    const t = await tenant();
    const formula = '=HYPERLINK("http://evil.example","click")';
    const csv = csvOf('email,givenName', `"${formula.replaceAll('"', '""')}",Ann`);
    expect(await refusedWith(t, csv)).toEqual([
      expect.objectContaining({ row: 2, column: 'email', code: 'INVALID_EMAIL' }),
    ]);
    const email = `${unique('f')}@example.test`;
    const named = csvOf('email,givenName', `${email},"${formula.replaceAll('"', '""')}"`);
    expect((await postCsv(h, t.tenantId, named, { token: t.owner.token })).status).toBe(200);
    const member = (await membersOf(h.db, t.tenantId)).find((m) => m.email === email);
    expect(member?.invitedDisplayName).toBe(formula);
  });

  it('the same address twice: the later row is the error, naming the first', async () => {
    const t = await tenant();
    const email = `${unique('d')}@example.test`;
    const csv = csvOf(
      'email,role',
      `${email},student`,
      `${unique('d')}@example.test,student`,
      `${email.toUpperCase()},teacher`,
    );
    const details = await refusedWith(t, csv);
    expect(details).toEqual([expect.objectContaining({ row: 4, column: 'email', code: 'DUPLICATE_EMAIL' })]);
    expect(details[0]?.message).toMatch(/row 2/);
  });

  it('a file without an email column', async () => {
    const t = await tenant();
    expect(await refusedWith(t, csvOf('role,givenName', 'student,Ann'))).toEqual([
      expect.objectContaining({ row: 1, code: 'MISSING_COLUMN' }),
    ]);
  });
});
