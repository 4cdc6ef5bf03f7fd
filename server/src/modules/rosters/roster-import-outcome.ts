import {
  ROSTER_PROBLEMS_LISTED_MAX,
  type RosterImport,
  type RosterImportQuery,
  type RosterProblem,
} from '@tms/contract';
import type { RosterImportRow } from '../../db/schema.js';
import { RosterInvalidError, RosterRemovalLimitError } from '../../errors/index.js';
import type { RosterFile } from './roster-file.js';
import type { RosterImportOutcome } from './roster-imports.repository.js';
import type { RosterPlan } from './roster-plan.js';
import type { CheckedRows } from './roster-rows.js';

/*
 * What an import ended with: its summary, its errors and warnings as GET shows them (the first
 * ROSTER_PROBLEMS_LISTED_MAX of each), and why it was, or would be, refused. The summary of a
 * refused import is what its valid rows would do.
 */

const byRow = (a: RosterProblem, b: RosterProblem) => (a.row ?? 0) - (b.row ?? 0);

/** What the import did (or, refused or a dry run, would do), with why it was refused. */
export function outcomeOf(
  importId: string,
  query: RosterImportQuery,
  file: RosterFile,
  checked: CheckedRows,
  plan: RosterPlan,
): RosterImportOutcome {
  // Both lists are in row order already: a stable sort merges them, columns kept in their order.
  const errors = [...checked.errors, ...plan.errors].sort(byRow);
  const planInvalid = new Set(plan.errors.map((error) => error.row)).size;
  const summary = { ...plan.summary, invalid: checked.invalidRows + planInvalid };
  const failure = failureOf(importId, query, summary.invalid, errors, plan);
  return {
    // A dry run succeeds in saying what applying would do, refusal included (`failure`).
    status: query.dryRun || !failure ? 'SUCCEEDED' : 'FAILED',
    rowsRead: file.dataRows,
    summary,
    errors: errors.slice(0, ROSTER_PROBLEMS_LISTED_MAX),
    warnings: [...file.warnings, ...plan.warnings].slice(0, ROSTER_PROBLEMS_LISTED_MAX),
    failure,
  };
}

function failureOf(
  importId: string,
  query: RosterImportQuery,
  invalid: number,
  errors: RosterProblem[],
  plan: RosterPlan,
): RosterImport['failure'] {
  if (errors.length > 0) {
    return { code: 'ROSTER_INVALID', message: new RosterInvalidError(importId, invalid, []).message };
  }
  if (!plan.removalLimit.exceeded) return null;
  return { code: 'ROSTER_REMOVAL_LIMIT', message: removalLimitMessage(importId, plan, query) };
}

function removalLimitMessage(
  importId: string,
  { removalLimit }: RosterPlan,
  query: RosterImportQuery,
): string {
  const { removals, members, allowed } = removalLimit;
  return (
    `The sync would remove ${removals} of ${members} members; maxRemovalPercent=${query.maxRemovalPercent} ` +
    `allows ${allowed}. Nothing was applied (import ${importId}): check the file, or raise maxRemovalPercent`
  );
}

/**
 * An import refused in its request answers as the refusal (409), once it is recorded: the
 * details list each error, at most ROSTER_PROBLEMS_LISTED_MAX.
 */
export function assertApplied(row: RosterImportRow): void {
  if (row.dryRun || !row.failure) return;
  if (row.failure.code === 'ROSTER_INVALID') {
    const details = row.errors.map(({ row: line, column, code, message }) => ({
      path: `rows[${line ?? 1}]${column === null ? '' : `.${column}`}`,
      message,
      row: line,
      column,
      code,
    }));
    throw new RosterInvalidError(row.id, row.summary.invalid, details);
  }
  if (row.failure.code === 'ROSTER_REMOVAL_LIMIT') throw new RosterRemovalLimitError(row.failure.message);
}
