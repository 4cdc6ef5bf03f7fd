import { JOIN_CODE_DAYS_MAX, type Role } from '@tms/contract';
import { ROLE_LEVEL } from './policy.js';
import type { Problem } from './problems.js';

const DAY_MS = 86_400_000;

/*
 * The rules of joining without an invitation (docs/joining.md). A code is a secret shared with a
 * room: whoever reads it gets what it gives, so it gives less than its maker holds, and never more
 * than TEACHER (the contract refuses ADMIN and OWNER outright).
 */

/** A TEACHER makes codes for STUDENT, an ADMIN or above for TEACHER: always below the maker's own role. */
export function codeRoleProblem(actorLevel: number, role: Role): Problem | undefined {
  if (ROLE_LEVEL[role] < actorLevel) return undefined;
  return {
    rule: 'hierarchy',
    message: `You may not manage join codes or requests for the role ${role}`,
    field: 'role',
  };
}

/**
 * Who decides a join request: a TEACHER only those a code they may manage opened (for STUDENT); a
 * request opened by a verified domain is the school's intake, not a class's, and an ADMIN or above
 * decides it. (join-requests.repository.ts lists by the same rule.)
 */
export function requestDeciderProblem(
  actorLevel: number,
  request: { role: Role; joinCodeId: string | null },
): Problem | undefined {
  if (request.joinCodeId === null && actorLevel < ROLE_LEVEL.ADMIN) {
    return {
      rule: 'adminOnly',
      message: 'Only an ADMIN or above decides a request made through a verified domain',
    };
  }
  return codeRoleProblem(actorLevel, request.role);
}

/** Why an expiry cannot be a code's, or undefined: in the future, at most JOIN_CODE_DAYS_MAX days away. */
export function codeExpiryProblem(expiresAt: Date, now: Date): string | undefined {
  if (expiresAt.getTime() <= now.getTime()) return 'must be in the future';
  if (expiresAt.getTime() > now.getTime() + JOIN_CODE_DAYS_MAX * DAY_MS)
    return `must be at most ${JOIN_CODE_DAYS_MAX} days from now`;
  return undefined;
}

/** An approval gives at most what the request asked for (the code's role). */
export function approvedRoleProblem(requested: Role, given: Role): string | undefined {
  return ROLE_LEVEL[given] <= ROLE_LEVEL[requested]
    ? undefined
    : `must be at most the request's role, ${requested}`;
}

export const defaultCodeExpiry = (now: Date, days: number): Date => new Date(now.getTime() + days * DAY_MS);
