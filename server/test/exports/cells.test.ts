import { describe, expect, it } from 'vitest';
import { neutraliseCell } from '../../src/modules/rosters/csv-cells.js';
import { toExportRecord } from '../../src/modules/rosters/membership-export.service.js';

describe('neutraliseCell (no database)', () => {
  it.each([
    ['=HYPERLINK("http://evil","x")', `'=HYPERLINK("http://evil","x")`],
    ['+1 555 0100', `'+1 555 0100`],
    ['-2+3', `'-2+3`],
    ['@SUM(1)', `'@SUM(1)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `'\r=1`],
  ])('prefixes %j', (value, written) => {
    expect(neutraliseCell(value)).toBe(written);
  });

  it.each(['', 'Anna', 'a=b', "'quoted", ' =leading space', '2024-01-01T00:00:00.000Z', 'ann-lee@x.test'])(
    'leaves %j alone',
    (value) => {
      expect(neutraliseCell(value)).toBe(value);
    },
  );
});

describe('the name columns', () => {
  const membership = {
    email: 'a@x.test',
    role: 'STUDENT' as const,
    startsAt: null,
    endsAt: null,
    userId: 'u',
    tenantMembershipId: 'm',
    status: 'ACTIVE' as const,
  };
  it.each([
    [null, null, null],
    ['   ', null, null],
    ['Cher', 'Cher', null],
    ['Anna Maria de la Cruz', 'Anna', 'Maria de la Cruz'],
    ['  Zoë\tvan  der Berg  ', 'Zoë', 'van  der Berg'],
  ])('%j: given %j, family %j', (displayName, givenName, familyName) => {
    expect(toExportRecord({ ...membership, displayName })).toMatchObject({ givenName, familyName });
  });
});
