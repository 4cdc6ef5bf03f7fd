import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/modules/scim/scim-filter.js';
import { filterSql } from '../../src/modules/scim/scim-filter.sql.js';
import { readPatch } from '../../src/modules/scim/scim-patch.js';
import { patchedUser, readUser } from '../../src/modules/scim/scim-user-input.js';
import { USER_ATTRIBUTES } from '../../src/modules/scim/scim-users.repository.js';

const dialect = new PgDialect();
const render = (text: string) => dialect.sqlToQuery(filterSql(parseFilter(text), USER_ATTRIBUTES));

describe('SCIM filters', () => {
  it('parses comparisons, presence, and/or/not with RFC precedence, and value paths', () => {
    expect(parseFilter('userName Eq "a@b.c"')).toEqual({
      kind: 'compare',
      path: 'username',
      op: 'eq',
      value: 'a@b.c',
    });
    expect(parseFilter('a eq 1 or b eq true and c pr')).toEqual({
      kind: 'or',
      left: { kind: 'compare', path: 'a', op: 'eq', value: 1 },
      right: {
        kind: 'and',
        left: { kind: 'compare', path: 'b', op: 'eq', value: true },
        right: { kind: 'present', path: 'c' },
      },
    });
    expect(parseFilter('not (a eq null)')).toEqual({
      kind: 'not',
      filter: { kind: 'compare', path: 'a', op: 'eq', value: null },
    });
    expect(parseFilter('emails[type eq "work" and value co "@x"]')).toEqual({
      kind: 'and',
      left: { kind: 'compare', path: 'emails.type', op: 'eq', value: 'work' },
      right: { kind: 'compare', path: 'emails.value', op: 'co', value: '@x' },
    });
    expect(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:name.familyName sw "O\\"B"')).toEqual({
      kind: 'compare',
      path: 'name.familyname',
      op: 'sw',
      value: 'O"B',
    });
  });

  it.each([
    '',
    'userName',
    'userName eq',
    'userName like "a"',
    'userName eq unquoted',
    '(userName eq "a"',
    'userName eq "a")',
    'userName eq "a" and',
    'emails[value eq "a"',
    'emails[type eq "a" and x[y eq "z"]]',
    '"a" eq userName',
    `${'('.repeat(40)}a pr${')'.repeat(40)}`,
  ])('refuses %j with invalidFilter', (text) => {
    expect(() => parseFilter(text)).toThrow(
      expect.objectContaining({ status: 400, scimType: 'invalidFilter' }),
    );
  });

  it('sends every value as a parameter, LIKE patterns escaped, emails in canonical form', () => {
    const eq = render('userName eq "Ada@Example.ORG"');
    expect(eq.params).toEqual(['ada@example.org']);
    expect(eq.sql).not.toContain('Ada');
    const like = render(`displayName co "50%_\\\\x'; drop table users; --"`);
    expect(like.params).toEqual([`%50\\%\\_\\\\x'; drop table users; --%`]);
    expect(like.sql).not.toContain('drop table');
    expect(render('displayName sw "a"').params).toEqual(['a%']);
    expect(render('displayName ew "a"').params).toEqual(['%a']);
    expect(render('id eq "nope"').sql).toContain('false');
    expect(() => render('nickName eq "a"')).toThrow(expect.objectContaining({ scimType: 'invalidFilter' }));
    expect(() => render('active gt true')).toThrow(expect.objectContaining({ scimType: 'invalidFilter' }));
    expect(() => render('meta.created gt "yesterday"')).toThrow(
      expect.objectContaining({ scimType: 'invalidFilter' }),
    );
  });
});

describe('SCIM user bodies and PatchOps, as directories send them', () => {
  const before = readUser({ userName: 'a@b.c', name: { givenName: 'A', familyName: 'B' }, active: true });

  it('reads "True"/"False", one-element arrays, null, and keys in any case', () => {
    expect(
      readUser({ USERNAME: ['x@y.z'], Active: 'False', externalId: null, displayName: [' D '] }),
    ).toMatchObject({
      userName: 'x@y.z',
      active: false,
      externalId: null,
      displayName: 'D',
    });
    expect(() => readUser({ active: 'yes' })).toThrow(expect.objectContaining({ scimType: 'invalidValue' }));
  });

  it('applies capitalised ops, no-path values with dotted and schema-prefixed keys, and removes', () => {
    const ops = readPatch({
      Operations: [
        {
          op: 'Replace',
          value: { 'name.givenName': 'G', 'urn:ietf:params:scim:schemas:core:2.0:User:active': 'False' },
        },
        { op: 'Remove', path: 'name.familyName' },
        { op: 'Add', path: 'externalId', value: ['e-1'] },
      ],
    });
    expect(patchedUser(before, ops)).toMatchObject({
      active: false,
      name: { givenName: 'G' },
      externalId: 'e-1',
    });
    expect(() => readPatch({ Operations: [{ op: 'remove' }] })).toThrow(
      expect.objectContaining({ scimType: 'noTarget' }),
    );
    expect(() => readPatch({ Operations: [{ op: 'copy', path: 'a' }] })).toThrow(
      expect.objectContaining({ scimType: 'invalidSyntax' }),
    );
  });
});
