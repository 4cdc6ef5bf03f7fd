import type { RosterProblem } from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import { directoryManagedProblem } from '../../rules/directory-rules.js';
import { hierarchyProblem, type Term, termProblems } from '../../rules/membership-rules.js';
import { firstProblem, type Problem } from '../../rules/problems.js';
import type { NamedByRow, PlannedMember } from './roster-plan.repository.js';
import type { RosterRow } from './roster-rows.js';

/*
 * A roster file's rows judged one by one, as single requests would be: whom each names, what it
 * would do to them, and what is wrong with it (the hierarchy, the term, a member named twice).
 * The rules on the whole file (the last ACTIVE OWNER, the removals) are in roster-plan.ts.
 */

export type { Term };

/** What a row would do, or why it may not. */
export type Judged =
  | { kind: 'error'; problem: RosterProblem; member: PlannedMember | null }
  | { kind: 'create'; row: RosterRow; after: Term }
  | { kind: 'updateRole' | 'updateTerm' | 'unchanged'; row: RosterRow; member: PlannedMember; after: Term };

export const problem = (
  row: number | null,
  column: string | null,
  code: string,
  message: string,
): RosterProblem => ({
  row,
  column,
  code,
  message,
});

const sameDate = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** A rule's problem (rules/membership-rules.ts) as the row's: the code a roster reports, the column. */
const ROSTER_CODE: Record<Problem['rule'], string> = {
  hierarchy: 'ROLE_HIERARCHY_VIOLATION',
  term: 'INVALID_TERM',
  lastActiveOwner: 'LAST_OWNER',
  ownerOnly: 'INSUFFICIENT_ROLE',
  adminOnly: 'INSUFFICIENT_ROLE',
  directoryManaged: 'MEMBERSHIP_MANAGED_BY_DIRECTORY',
};
const asRowProblem = (row: RosterRow, found: Problem): RosterProblem =>
  problem(row.row, found.field ?? 'role', ROSTER_CODE[found.rule], found.message);

/**
 * The rules a single request is held to, for one row: the directory's hold on a role, the
 * hierarchy, then the term after the row.
 */
function rowProblem(access: TenantAccess, row: RosterRow, member: PlannedMember | null, after: Term) {
  const before = member?.role ?? null;
  const found = firstProblem(
    member && after.role !== member.role ? directoryManagedProblem(member.managedBy, 'role') : undefined,
    before === null ? undefined : hierarchyProblem(access.level, before, 'change'),
    hierarchyProblem(access.level, after.role, 'give'),
    ...termProblems(after, { startsAt: row.startsAt !== undefined, endsAt: row.endsAt !== undefined }),
  );
  return found && asRowProblem(row, found);
}

function judgeRow(access: TenantAccess, row: RosterRow, named: NamedByRow): Judged {
  const { member } = named;
  const error = (p: RosterProblem): Judged => ({ kind: 'error', problem: p, member });
  if (named.erasedHolder)
    return error(problem(row.row, 'email', 'UNKNOWN_MEMBER', 'this address belongs to an erased user'));
  if (!member) {
    if (!row.email)
      return error(problem(row.row, 'userId', 'UNKNOWN_MEMBER', 'no member of this tenant has this userId'));
    const after = { role: row.role ?? 'STUDENT', startsAt: row.startsAt ?? null, endsAt: row.endsAt ?? null };
    const wrong = rowProblem(access, row, null, after);
    return wrong ? error(wrong) : { kind: 'create', row, after };
  }
  const after = {
    // Empty cells, or no such column: the member keeps what they have.
    role: row.role ?? member.role,
    startsAt: row.startsAt === undefined ? member.startsAt : row.startsAt,
    endsAt: row.endsAt === undefined ? member.endsAt : row.endsAt,
  };
  const kind =
    after.role !== member.role
      ? 'updateRole'
      : sameDate(after.startsAt, member.startsAt) && sameDate(after.endsAt, member.endsAt)
        ? 'unchanged'
        : 'updateTerm';
  // A row that changes nothing asks for nothing: an ADMIN's file may list the OWNERs as they are.
  if (kind === 'unchanged') return { kind, row, member, after };
  const wrong = rowProblem(access, row, member, after);
  return wrong ? error(wrong) : { kind, row, member, after };
}

/** Each row judged; a later row naming a member (or an address) an earlier row named is an error. */
export function judgeRows(
  access: TenantAccess,
  rows: readonly RosterRow[],
  named: readonly NamedByRow[],
): Judged[] {
  const firstRowOf = new Map<string, number>();
  return rows.map((row, n) => {
    const person = named[n] as NamedByRow;
    const key = person.userId ?? (row.email ? `address:${row.email.canonical}` : undefined);
    const first = key === undefined ? undefined : firstRowOf.get(key);
    if (first !== undefined) {
      const column = row.email ? 'email' : 'userId';
      return {
        kind: 'error',
        problem: problem(row.row, column, 'DUPLICATE_EMAIL', `names the same member as row ${first}`),
        member: null,
      };
    }
    if (key !== undefined) firstRowOf.set(key, row.row);
    return judgeRow(access, row, person);
  });
}
