import type { MembershipStatus, Role } from '@tms/contract';
import { describe, expect, it } from 'vitest';
import {
  hierarchyProblem,
  isActiveOwner,
  lastActiveOwnerProblem,
  ownerOnlyProblem,
  reactivatedTerm,
  statusAt,
  type Term,
  termProblems,
} from '../../src/rules/membership-rules.js';
import { firstProblem, problemError } from '../../src/rules/problems.js';

// The rules of docs/access.md and docs/lifecycle.md, decided on what was read under the tenant's
// lock, without a database: OWNER 40 > ADMIN 30 > TEACHER 20 > STUDENT 10; a super administrator
// acts at 100.

const NOW = new Date('2026-06-01T12:00:00Z');
const before = (iso: string) => new Date(new Date(iso).getTime());
const PAST = before('2026-01-01T00:00:00Z');
const FUTURE = before('2027-01-01T00:00:00Z');

describe('the hierarchy: nobody gives, or acts on, a role above their own', () => {
  it.each<[string, number, Role, boolean]>([
    ['an OWNER gives OWNER', 40, 'OWNER', true],
    ['an ADMIN gives ADMIN', 30, 'ADMIN', true],
    ['an ADMIN gives OWNER', 30, 'OWNER', false],
    ['an ADMIN gives STUDENT', 30, 'STUDENT', true],
    ['a TEACHER gives ADMIN', 20, 'ADMIN', false],
    ['a super administrator gives OWNER', 100, 'OWNER', true],
  ])('%s: %s', (_label, level, role, allowed) => {
    expect(hierarchyProblem(level, role, 'give') === undefined).toBe(allowed);
  });

  it('says what was refused, with the role, in words per act', () => {
    expect(hierarchyProblem(30, 'OWNER', 'remove')).toEqual({
      rule: 'hierarchy',
      field: 'role',
      message: 'You may not remove a membership whose role is OWNER',
    });
    expect(hierarchyProblem(20, 'ADMIN', 'invite')?.message).toBe('You may not invite to the role ADMIN');
    expect(problemError(hierarchyProblem(30, 'OWNER', 'change') as never).code).toBe(
      'ROLE_HIERARCHY_VIOLATION',
    );
  });
});

describe('OWNER-only actions', () => {
  it.each<[number, boolean]>([
    [40, true],
    [100, true],
    [30, false],
    [20, false],
  ])('at level %i: allowed %s', (level, allowed) => {
    expect(ownerOnlyProblem(level, 'ownershipTransfer') === undefined).toBe(allowed);
    expect(ownerOnlyProblem(level, 'webhooks') === undefined).toBe(allowed);
  });

  it('is INSUFFICIENT_ROLE, naming the action', () => {
    const problem = ownerOnlyProblem(30, 'webhooks');
    expect(problem?.message).toBe('Only an OWNER may change the tenant’s webhook endpoints');
    expect(problemError(problem as never).code).toBe('INSUFFICIENT_ROLE');
  });
});

describe('term dates', () => {
  const term = (role: Role, startsAt: Date | null, endsAt: Date | null): Term => ({ role, startsAt, endsAt });
  const none = { startsAt: false, endsAt: false };

  it.each<[string, Term, { startsAt: boolean; endsAt: boolean }, string[]]>([
    ['open-ended', term('STUDENT', null, null), none, []],
    ['in order', term('STUDENT', PAST, FUTURE), { startsAt: true, endsAt: true }, []],
    [
      'out of order, the end sent',
      term('STUDENT', FUTURE, PAST),
      { startsAt: false, endsAt: true },
      ['endsAt'],
    ],
    [
      'out of order, both sent: named by the end',
      term('STUDENT', FUTURE, PAST),
      { startsAt: true, endsAt: true },
      ['endsAt'],
    ],
    [
      'out of order, the start sent',
      term('STUDENT', FUTURE, PAST),
      { startsAt: true, endsAt: false },
      ['startsAt'],
    ],
    [
      'equal dates are out of order',
      term('STUDENT', PAST, PAST),
      { startsAt: false, endsAt: true },
      ['endsAt'],
    ],
    ['an OWNER, undated', term('OWNER', null, null), none, []],
    ['an OWNER with a start', term('OWNER', PAST, null), { startsAt: true, endsAt: false }, ['startsAt']],
    ['an OWNER with both', term('OWNER', PAST, FUTURE), none, ['startsAt', 'endsAt']],
  ])('%s', (_label, after, sent, fields) => {
    expect(termProblems(after, sent).map((p) => p.field)).toEqual(fields);
  });

  it('tells how to clear a date kept from before, not one the change sent', () => {
    const [kept] = termProblems(term('OWNER', PAST, null), none);
    expect(kept?.message).toBe('an OWNER membership has no term dates: clear startsAt (it has one now)');
    const [sent] = termProblems(term('OWNER', PAST, null), { startsAt: true, endsAt: false });
    expect(sent?.message).toBe('an OWNER membership has no term dates');
  });
});

describe('status at a time, and reactivation', () => {
  const standing = (suspendedAt: Date | null, startsAt: Date | null, endsAt: Date | null) => ({
    suspendedAt,
    startsAt,
    endsAt,
  });
  it.each<[string, ReturnType<typeof standing>, MembershipStatus]>([
    ['open-ended', standing(null, null, null), 'ACTIVE'],
    ['within its term', standing(null, PAST, FUTURE), 'ACTIVE'],
    ['not begun', standing(null, FUTURE, null), 'SCHEDULED'],
    ['ended', standing(null, null, PAST), 'ENDED'],
    ['ending now is ended', standing(null, null, NOW), 'ENDED'],
    ['beginning now is active', standing(null, NOW, null), 'ACTIVE'],
    ['suspended outranks the dates', standing(PAST, FUTURE, null), 'SUSPENDED'],
    ['an ended term outranks one not begun', standing(null, FUTURE, PAST), 'ENDED'],
  ])('%s: %s', (_label, s, status) => {
    expect(statusAt(s, NOW)).toBe(status);
  });

  it('reactivation drops a start to come and an end passed, and keeps the others', () => {
    expect(reactivatedTerm(standing(PAST, FUTURE, PAST), NOW)).toEqual({ startsAt: null, endsAt: null });
    expect(reactivatedTerm(standing(PAST, PAST, FUTURE), NOW)).toEqual({ startsAt: PAST, endsAt: FUTURE });
  });
});

describe('the last ACTIVE OWNER', () => {
  const seat = (role: Role, status: MembershipStatus) => ({ role, status });
  it.each<[string, ReturnType<typeof seat>, ReturnType<typeof seat> | undefined, number, boolean]>([
    ['removing the only one', seat('OWNER', 'ACTIVE'), undefined, 1, true],
    ['removing one of two', seat('OWNER', 'ACTIVE'), undefined, 2, false],
    ['demoting the only one', seat('OWNER', 'ACTIVE'), seat('ADMIN', 'ACTIVE'), 1, true],
    ['suspending the only one', seat('OWNER', 'ACTIVE'), seat('OWNER', 'SUSPENDED'), 1, true],
    ['giving the only one a later start', seat('OWNER', 'ACTIVE'), seat('OWNER', 'SCHEDULED'), 1, true],
    ['keeping the only one an ACTIVE OWNER', seat('OWNER', 'ACTIVE'), seat('OWNER', 'ACTIVE'), 1, false],
    ['removing a suspended OWNER', seat('OWNER', 'SUSPENDED'), undefined, 1, false],
    ['removing an ADMIN', seat('ADMIN', 'ACTIVE'), undefined, 1, false],
  ])('%s: refused %s', (_label, was, after, owners, refused) => {
    expect(lastActiveOwnerProblem(was, after, owners) !== undefined).toBe(refused);
  });

  it('is LAST_OWNER, and counts only ACTIVE OWNERs', () => {
    expect(problemError(lastActiveOwnerProblem(seat('OWNER', 'ACTIVE'), undefined, 1) as never).code).toBe(
      'LAST_OWNER',
    );
    expect(isActiveOwner(seat('OWNER', 'SCHEDULED'))).toBe(false);
  });
});

describe('the order of the checks', () => {
  it('answers the first problem found, in the order given', () => {
    const found = firstProblem(
      undefined,
      hierarchyProblem(30, 'OWNER', 'change'),
      ownerOnlyProblem(30, 'webhooks'),
    );
    expect(found?.rule).toBe('hierarchy');
  });
});
