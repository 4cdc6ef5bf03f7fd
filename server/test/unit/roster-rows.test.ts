import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRosterCsv } from '../../src/modules/rosters/roster-file.js';
import { checkRosterRows } from '../../src/modules/rosters/roster-rows.js';
import { chunked, codesOf, HEADER, readCsv } from './roster-sources.js';

const check = async (lines: string[]) => checkRosterRows(await readCsv(lines));
const USER_ID = '0b6f3a52-5c1e-4d8e-9a57-2f1c3d4e5f60';

describe('checking roster rows', () => {
  it('turns a row into what the import needs', async () => {
    const { rows, errors, invalidRows } = await check([
      HEADER,
      ' Ann.Lee@Example.ORG ,teacher, Ann , Lee ,2025-09-01,2026-07-01T17:30:00+02:00',
    ]);
    expect(rows).toEqual([
      {
        row: 2,
        email: { address: 'Ann.Lee@Example.ORG', canonical: 'ann.lee@example.org' },
        userId: null,
        role: 'TEACHER',
        displayName: 'Ann Lee',
        startsAt: new Date('2025-09-01T00:00:00Z'),
        endsAt: new Date('2026-07-01T15:30:00Z'),
        guardian: null,
      },
    ]);
    expect([errors, invalidRows]).toEqual([[], 0]);
  });

  it('checks the sample file in docs/examples without an error', async () => {
    const text = readFileSync(new URL('../../../docs/examples/roster.csv', import.meta.url));
    expect(text.subarray(0, 3).toString('latin1')).toBe('ema'); // no BOM
    const file = await readRosterCsv(chunked(text, 1024));
    const { rows, errors } = checkRosterRows(file);
    expect([file.errors, file.warnings, errors]).toEqual([[], [], []]);
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map(({ role }) => role))).toEqual(new Set(['TEACHER', 'STUDENT']));
    expect(rows.map(({ displayName }) => displayName)).toContain("Liam O'Brien, Jr.");
    expect(rows.map(({ displayName }) => displayName)).toContain('Jérôme Lefèvre');
  });

  it('reads our roles and the OneRoster ones, in any case; an empty cell or no column is undefined', async () => {
    const roles = ['OWNER', 'admin', 'Teacher', 'student', 'Administrator', 'TEACHER', 'STUDENT', 'AIDE', ''];
    const { rows } = await check(['email,role', ...roles.map((role, i) => `u${i}@x.org,${role}`)]);
    expect(rows.map(({ role }) => role)).toEqual([
      'OWNER',
      'ADMIN',
      'TEACHER',
      'STUDENT',
      'ADMIN',
      'TEACHER',
      'STUDENT',
      'TEACHER',
      undefined,
    ]);
    expect((await check(['email', 'a@x.org'])).rows[0]?.role).toBeUndefined();
  });

  it('gives INVALID_ROLE for any other role, saying which are accepted', async () => {
    const { errors, rows } = await check(['email,role', 'a@x.org,principal', 'b@x.org,10']);
    expect(codesOf(errors)).toEqual(['2 role INVALID_ROLE', '3 role INVALID_ROLE']);
    expect(errors[0]?.message).toBe(
      'role must be one of OWNER, ADMIN, TEACHER, STUDENT, administrator, teacher, student, aide',
    );
    expect(rows).toEqual([]);
  });

  it('needs an email, unless the row has a userId: REQUIRED', async () => {
    const { rows, errors } = await check([
      'email,role,userId',
      ',STUDENT,',
      `,STUDENT,${USER_ID.toUpperCase()}`,
    ]);
    expect(codesOf(errors)).toEqual(['2 email REQUIRED']);
    expect(errors[0]?.message).toBe("email is required: give the member's email address");
    expect(rows).toMatchObject([{ row: 3, email: null, userId: USER_ID }]);
  });

  it('gives INVALID_EMAIL for what "add by email" refuses, formulas included', async () => {
    const bad = [
      'nobody',
      'a@b',
      'two@@x.org',
      'a b@x.org',
      '=HYPERLINK("http://x","y")',
      `${'a'.repeat(250)}@x.org`,
    ];
    const { rows, errors } = await check([
      'email',
      ...bad.map((email) => `"${email.replaceAll('"', '""')}"`),
    ]);
    expect(codesOf(errors)).toEqual(bad.map((_, i) => `${i + 2} email INVALID_EMAIL`));
    expect(errors[0]?.message).toBe('email "nobody" is not valid: must be an email address');
    expect(errors[1]?.message).toBe(
      'email "a@b" is not valid: Domain lacks the minimum required number of segments',
    );
    expect(rows).toEqual([]);
  });

  it('canonicalises emails as "add by email" does: IDNA domain, ASCII-lower-cased local part', async () => {
    const { rows } = await check(['email', 'JÖRG@Müller.DE', '\u212Aim@x.org']);
    expect(rows.map(({ email }) => email)).toEqual([
      { address: 'JÖRG@Müller.DE', canonical: 'jÖrg@xn--mller-kva.de' },
      { address: '\u212Aim@x.org', canonical: '\u212Aim@x.org' },
    ]);
  });

  it('gives DUPLICATE_EMAIL on a later row naming the same member, by email or userId', async () => {
    const { rows, errors, invalidRows } = await check([
      'email,userId',
      `a@x.org,${USER_ID}`,
      'b@x.org,',
      'A@X.ORG,',
      `c@x.org,${USER_ID.toUpperCase()}`,
    ]);
    expect(codesOf(errors)).toEqual(['4 email DUPLICATE_EMAIL', '5 userId DUPLICATE_EMAIL']);
    expect(errors.map(({ message }) => message)).toEqual([
      'the same email as row 2: list each member once',
      'the same userId as row 2: list each member once',
    ]);
    expect(rows.map(({ row }) => row)).toEqual([2, 3]);
    expect(invalidRows).toBe(2);
  });

  it('gives INVALID_USER_ID for a userId that is not a UUID', async () => {
    const { errors } = await check(['email,userId', 'a@x.org,42', ',not-a-uuid']);
    expect(codesOf(errors)).toEqual(['2 userId INVALID_USER_ID', '3 userId INVALID_USER_ID']);
  });

  it("removes the export's neutralising quote before checking, and keeps formulas in names as text", async () => {
    const { rows, errors } = await check([
      'email,role,givenName,familyName',
      `"'=a@x.org",STUDENT,"'=HYPERLINK(""http://x"",""y"")",'@SUM(1)`,
      `b@x.org,'STUDENT,'-Ann,'+1`,
      `c@x.org,,"=HYPERLINK(""http://x"",""y"")",'Lee`,
    ]);
    expect(codesOf(errors)).toEqual(['3 role INVALID_ROLE']);
    expect(rows.map(({ email, displayName }) => [email?.address, displayName])).toEqual([
      ['=a@x.org', '=HYPERLINK("http://x","y") @SUM(1)'],
      ['c@x.org', `=HYPERLINK("http://x","y") 'Lee`],
    ]);
  });
});
