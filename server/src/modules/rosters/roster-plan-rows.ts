import { ROLE_LEVEL, type Role, type RosterProblem } from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import type { NamedByRow, PlannedMember } from './roster-plan.repository.js';
import type { RosterRow } from './roster-rows.js';

/*
 * A roster file's rows judged one by one, as single requests would be: whom each names, what it
 * would do to them, and what is wrong with it (the hierarchy, the term, a member named twice).
 * The rules on the whole file (the last ACTIVE OWNER, the removals) are in roster-plan.ts.
 */

/** A membership's role and term dates. */
export type Term = { role: Role; startsAt: Date | null; endsAt: Date | null };

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

/** As a single request: nobody gives, or changes the holder of, a role above their own. */
function hierarchyProblem(access: TenantAccess, row: RosterRow, before: Role | null, after: Role) {
  if (before && ROLE_LEVEL[before] > access.level)
    return problem(
      row.row,
      'role',
      'ROLE_HIERARCHY_VIOLATION',
      `You may not change a membership whose role is ${before}`,
    );
  if (ROLE_LEVEL[after] > access.level)
    return problem(row.row, 'role', 'ROLE_HIERARCHY_VIOLATION', `You may not give the role ${after}`);
  return undefined;
}

/**
 * The term as it would be after the row: in order (the row may send one date, the other kept),
 * and none for an OWNER, who answers for the tenant for as long as it is one (as a PATCH).
 */
function termProblem(row: RosterRow, { role, startsAt, endsAt }: Term) {
  if (startsAt && endsAt && startsAt.getTime() >= endsAt.getTime()) {
    return row.endsAt !== undefined
      ? problem(row.row, 'endsAt', 'INVALID_TERM', `must be after startsAt (${startsAt.toISOString()})`)
      : problem(row.row, 'startsAt', 'INVALID_TERM', `must be before endsAt (${endsAt.toISOString()})`);
  }
  if (role !== 'OWNER' || (!startsAt && !endsAt)) return undefined;
  const column = startsAt ? 'startsAt' : 'endsAt';
  const kept = row[column] === undefined ? `: clear ${column} (it has one now)` : '';
  return problem(row.row, column, 'INVALID_TERM', `an OWNER membership has no term dates${kept}`);
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
    const wrong = hierarchyProblem(access, row, null, after.role) ?? termProblem(row, after);
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
  const wrong = hierarchyProblem(access, row, member.role, after.role) ?? termProblem(row, after);
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
