import { describe, expect, it } from 'vitest';
import {
  approvedRoleProblem,
  codeExpiryProblem,
  codeRoleProblem,
  requestDeciderProblem,
} from '../../src/rules/join-rules.js';
import { ROLE_LEVEL } from '../../src/rules/policy.js';

const DAY = 86_400_000;
const NOW = new Date('2025-09-01T08:00:00.000Z');
const at = (days: number) => new Date(NOW.getTime() + days * DAY);

describe('codeRoleProblem: a code gives less than its maker holds', () => {
  it.each([
    ['a TEACHER, for STUDENT', ROLE_LEVEL.TEACHER, 'STUDENT', false],
    ['a TEACHER, for TEACHER', ROLE_LEVEL.TEACHER, 'TEACHER', true],
    ['an ADMIN, for TEACHER', ROLE_LEVEL.ADMIN, 'TEACHER', false],
    ['an OWNER, for TEACHER', ROLE_LEVEL.OWNER, 'TEACHER', false],
    ['a STUDENT, for STUDENT', ROLE_LEVEL.STUDENT, 'STUDENT', true],
  ] as const)('%s', (_label, level, role, refused) => {
    const problem = codeRoleProblem(level, role);
    expect(problem !== undefined).toBe(refused);
    if (problem) expect(problem).toMatchObject({ rule: 'hierarchy', field: 'role' });
  });
});

describe("requestDeciderProblem: a TEACHER decides what a STUDENT code opened, a domain's requests are an ADMIN's", () => {
  const CODE = 'code-id';
  it.each([
    ['a TEACHER, a STUDENT request by code', ROLE_LEVEL.TEACHER, 'STUDENT', CODE, undefined],
    ['a TEACHER, a TEACHER request by code', ROLE_LEVEL.TEACHER, 'TEACHER', CODE, 'hierarchy'],
    ['a TEACHER, a STUDENT request by domain', ROLE_LEVEL.TEACHER, 'STUDENT', null, 'adminOnly'],
    ['an ADMIN, a STUDENT request by domain', ROLE_LEVEL.ADMIN, 'STUDENT', null, undefined],
    ['an ADMIN, a TEACHER request by domain', ROLE_LEVEL.ADMIN, 'TEACHER', null, undefined],
    ['an OWNER, a TEACHER request by code', ROLE_LEVEL.OWNER, 'TEACHER', CODE, undefined],
  ] as const)('%s', (_label, level, role, joinCodeId, rule) => {
    expect(requestDeciderProblem(level, { role, joinCodeId })?.rule).toBe(rule);
  });
});

describe('codeExpiryProblem: in the future, at most 90 days away', () => {
  it.each([
    ['now', 0, 'must be in the future'],
    ['yesterday', -1, 'must be in the future'],
    ['in an hour', 1 / 24, undefined],
    ['in 90 days', 90, undefined],
    ['in 90 days and a minute', 90 + 1 / 1440, 'must be at most 90 days from now'],
  ] as const)('%s', (_label, days, problem) => {
    expect(codeExpiryProblem(at(days), NOW)).toBe(problem);
  });
});

describe("approvedRoleProblem: an approval gives at most the request's role", () => {
  it('allows the same role or a lower one, never a higher one', () => {
    expect(approvedRoleProblem('TEACHER', 'TEACHER')).toBeUndefined();
    expect(approvedRoleProblem('TEACHER', 'STUDENT')).toBeUndefined();
    expect(approvedRoleProblem('STUDENT', 'TEACHER')).toMatch(/at most the request's role, STUDENT/);
  });
});
