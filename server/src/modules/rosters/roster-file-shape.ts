import type { RosterColumn, RosterProblem } from '@tms/contract';

/*
 * What reading a roster file makes, whichever reader reads it (roster-csv.ts for CSV, roster-file.ts
 * for JSON rows): its columns, its rows as read, its problems. The readers and the header matching
 * (roster-header.ts) share it, and import none of each other for it.
 */

/** One data row as read: `cells` holds the known columns' cells, trimmed; `row` is its line in the file. */
export type RawRosterRow = { row: number; cells: Partial<Record<RosterColumn, string>> };
export type RosterFile = {
  /** The known columns the header has: a column absent from the file leaves that field alone. */
  columns: ReadonlySet<RosterColumn>;
  /** Each known column's name as the file spells it (for messages and `column` of problems). */
  headerNames: Partial<Record<RosterColumn, string>>;
  /** Every data row that could be read, in file order; a row with an error in `errors` is not here. */
  rows: RawRosterRow[];
  /** MISSING_COLUMN, COLUMN_COUNT, UNCLOSED_QUOTE, INVALID_UTF8, MALFORMED_CSV */
  errors: RosterProblem[];
  /** UNKNOWN_COLUMN (one per unknown header, row 1) */
  warnings: RosterProblem[];
  /** The data rows read, with errors or not (blank lines and the header not counted): `rowsTotal`. */
  dataRows: number;
  /** The data rows left out of `rows` for an error in `errors`. */
  invalidRows: number;
};
export type ReadLimits = { maxRows: number; maxBytes: number; onProgress?: (rowsRead: number) => void };

/** A file being read: its columns are still being found. */
export type RosterFileDraft = RosterFile & { columns: Set<RosterColumn> };

export const emptyRosterFile = (): RosterFileDraft => ({
  columns: new Set(),
  headerNames: {},
  rows: [],
  errors: [],
  warnings: [],
  dataRows: 0,
  invalidRows: 0,
});
