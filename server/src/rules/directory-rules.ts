import type { Role } from '@tms/contract';
import { ROLE_LEVEL } from './policy.js';
import type { Problem } from './problems.js';

/*
 * The rules of a tenant's directory (SCIM): which role its groups give, and what a person may no
 * longer change by hand once the directory manages a membership.
 */

/**
 * A directory-managed member's role: the highest its mapped groups give, STUDENT when none. An
 * OWNER stays one: groups never give OWNER, and ownership passes by a transfer a person accepts,
 * never by a directory's group.
 */
export function roleFromGroups(current: Role, fromGroups: Role | undefined): Role {
  if (current === 'OWNER') return 'OWNER';
  const role = fromGroups ?? 'STUDENT';
  return role === 'OWNER' ? 'ADMIN' : role;
}

/** The highest of two roles (the ladder of rules/policy.ts). */
export const higherRole = (a: Role, b: Role): Role => (ROLE_LEVEL[a] >= ROLE_LEVEL[b] ? a : b);

/** What a person does by hand to a membership, that its directory alone decides once it manages it. */
export type HandAct = 'role' | 'suspend' | 'reactivate' | 'remove';

/**
 * Two sources of truth would undo each other at every sync: once the directory manages a
 * membership, its role, its status and its removal change there (term dates stay a person's).
 */
export function directoryManagedProblem(managedBy: string | null, act: HandAct): Problem | undefined {
  if (managedBy !== 'scim') return undefined;
  return { rule: 'directoryManaged', message: `the directory manages this membership (${act})` };
}
