import {
  type AppError,
  InsufficientRoleError,
  LastOwnerError,
  MembershipManagedByDirectoryError,
  RoleHierarchyViolationError,
  ValidationFailedError,
} from '../errors/index.js';

/**
 * What a rule finds wrong with a change, before the change is made: returned, not thrown, so that
 * a single request throws the first one (problemError) and a roster import collects one per row.
 */
export type Problem = {
  rule: 'hierarchy' | 'term' | 'lastActiveOwner' | 'ownerOnly' | 'adminOnly' | 'directoryManaged';
  message: string;
  /** The field of the change at fault (a term's date; a role). */
  field?: 'role' | 'startsAt' | 'endsAt';
};

/** The first problem of several checked in order, or undefined. */
export const firstProblem = (...problems: (Problem | undefined)[]): Problem | undefined =>
  problems.find((problem) => problem !== undefined);

/** The error a single request answers for a problem. */
export function problemError(problem: Problem): AppError {
  switch (problem.rule) {
    case 'hierarchy':
      return new RoleHierarchyViolationError(problem.message);
    case 'lastActiveOwner':
      return new LastOwnerError();
    case 'ownerOnly':
    case 'adminOnly':
      return new InsufficientRoleError(problem.message);
    case 'directoryManaged':
      return new MembershipManagedByDirectoryError();
    case 'term':
      return new ValidationFailedError([
        { path: `body.${problem.field ?? 'startsAt'}`, message: problem.message },
      ]);
  }
}

/** Throws the first problem of a single request's checks, as its error. */
export function refuse(...problems: (Problem | undefined)[]): void {
  const problem = firstProblem(...problems);
  if (problem) throw problemError(problem);
}

/** Throws a term's problems as one answer, each field named: a request may date two fields wrong. */
export function refuseTerm(problems: Problem[]): void {
  if (problems.length === 0) return;
  throw new ValidationFailedError(
    problems.map((problem) => ({ path: `body.${problem.field ?? 'startsAt'}`, message: problem.message })),
  );
}
