import {
  ROSTER_COLUMNS,
  type ROSTER_ROW_ERROR_CODES,
  type ROSTER_WARNING_CODES,
  type RosterColumn,
  type RosterProblem,
} from '@tms/contract';
import type { RosterFileDraft } from './roster-file-shape.js';

export type RosterProblemCode =
  | (typeof ROSTER_ROW_ERROR_CODES)[number]
  | (typeof ROSTER_WARNING_CODES)[number];

export const rosterProblem = (
  row: number,
  column: string | null,
  code: RosterProblemCode,
  message: string,
): RosterProblem => ({ row, column, code, message });

/** The header's known columns, by position; undefined for a column that is ignored. */
export type HeaderColumns = (RosterColumn | undefined)[];

const COLUMN_BY_NAME: ReadonlyMap<string, RosterColumn> = new Map<string, RosterColumn>([
  ...ROSTER_COLUMNS.map((column): [string, RosterColumn] => [column.toLowerCase(), column]),
  // The guardian columns as student information systems spell them in their exports.
  ['guardian_email', 'guardianEmail'],
  ['guardian_relationship', 'guardianRelationship'],
]);
/** Header names are matched as people type them: `Email`, ` EMAIL `, `givenname`. */
const columnNamed = (name: string) => COLUMN_BY_NAME.get(name.trim().toLowerCase());

export const MISSING_EMAIL =
  'there is no email column: the first row must name the columns (email, role, givenName, …)';

function unknownColumn(row: number, name: string): RosterProblem {
  if (name.trim() === '')
    return rosterProblem(row, null, 'UNKNOWN_COLUMN', 'a column with no name is ignored');
  const message = `column "${name}" is ignored: the columns read are ${ROSTER_COLUMNS.join(', ')}`;
  return rosterProblem(row, name, 'UNKNOWN_COLUMN', message);
}

/** The header's columns, recording the known ones in `file`, with its warnings and errors. */
export function matchHeader(names: readonly string[], row: number, file: RosterFileDraft): HeaderColumns {
  const header = names.map((name) => {
    const column = columnNamed(name);
    if (column === undefined) {
      file.warnings.push(unknownColumn(row, name));
    } else if (file.columns.has(column)) {
      const message = `the header names ${column} twice: keep one of the two columns`;
      file.errors.push(rosterProblem(row, name, 'MALFORMED_CSV', message));
    } else {
      file.columns.add(column);
      file.headerNames[column] = name;
      return column;
    }
    return undefined;
  });
  if (!file.columns.has('email'))
    file.errors.push(rosterProblem(row, 'email', 'MISSING_COLUMN', MISSING_EMAIL));
  return header;
}

/** A JSON row's key as a column (`keys` remembers each spelling met), recorded in `file` when first met. */
export function matchJsonKey(
  key: string,
  keys: Map<string, RosterColumn | undefined>,
  file: RosterFileDraft,
): RosterColumn | undefined {
  if (keys.has(key)) return keys.get(key);
  const column = columnNamed(key);
  keys.set(key, column);
  if (column === undefined) {
    file.warnings.push(unknownColumn(1, key.trim()));
  } else if (!file.columns.has(column)) {
    file.columns.add(column);
    file.headerNames[column] = key.trim();
  }
  return column;
}
