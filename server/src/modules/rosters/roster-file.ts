import { ROSTER_BYTES_MAX, ROSTER_ROWS_MAX, type RosterColumn } from '@tms/contract';
import { PayloadTooLargeError } from '../../errors/index.js';
import { RosterCsv, tooManyRows } from './roster-csv.js';
import { emptyRosterFile, type RawRosterRow, type ReadLimits, type RosterFile } from './roster-file-shape.js';
import { MISSING_EMAIL, matchJsonKey, rosterProblem } from './roster-header.js';

export type { RawRosterRow, ReadLimits, RosterFile, RosterFileDraft } from './roster-file-shape.js';

const tooManyBytes = (maxBytes: number) =>
  new PayloadTooLargeError(
    `the ${maxBytes % 1_048_576 === 0 ? `${maxBytes / 1_048_576} MiB` : `${maxBytes}-byte`} limit`,
  );

/**
 * Streams: parses as chunks arrive; past maxBytes or maxRows throws PayloadTooLargeError. A file
 * csv-parse cannot read past some row (a broken quote, a bad header) stops there: the source is
 * not read further (`for await` ends, which calls the iterator's `return()`).
 */
export async function readRosterCsv(
  source: AsyncIterable<Buffer | string>,
  limits: Partial<ReadLimits> = {},
): Promise<RosterFile> {
  const maxBytes = limits.maxBytes ?? ROSTER_BYTES_MAX;
  const csv = new RosterCsv(emptyRosterFile(), limits.maxRows ?? ROSTER_ROWS_MAX);
  let bytes = 0;
  try {
    for await (const chunk of source) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      if (bytes > maxBytes) throw tooManyBytes(maxBytes);
      if (buffer.length === 0) continue;
      if (!(await csv.write(buffer))) break;
      limits.onProgress?.(csv.file.dataRows);
    }
    await csv.end();
  } finally {
    csv.close();
  }
  limits.onProgress?.(csv.file.dataRows);
  return csv.file;
}

/**
 * `{ rows }` as JSON: `rows[i]` is row `i + 2`, as if a header were row 1. Keys are columns (case
 * and spaces ignored); a key a row leaves out leaves that field alone for that row; null is empty.
 */
export function readRosterJson(
  body: { rows: Record<string, string | null>[] },
  limits: Partial<Pick<ReadLimits, 'maxRows'>> = {},
): RosterFile {
  const maxRows = limits.maxRows ?? ROSTER_ROWS_MAX;
  if (body.rows.length > maxRows) throw tooManyRows(maxRows);
  const file = emptyRosterFile();
  const keys = new Map<string, RosterColumn | undefined>();
  body.rows.forEach((source, index) => {
    const row = index + 2;
    const cells: RawRosterRow['cells'] = {};
    let twice: RosterColumn | undefined;
    for (const [key, value] of Object.entries(source ?? {})) {
      const column = matchJsonKey(key, keys, file);
      if (column === undefined) continue;
      if (cells[column] !== undefined) twice = column;
      cells[column] = typeof value === 'string' ? value.trim() : value == null ? '' : String(value).trim();
    }
    file.dataRows++;
    if (twice === undefined) {
      file.rows.push({ row, cells });
    } else {
      const message = `${twice} is given twice: keep one`;
      file.errors.push(rosterProblem(row, file.headerNames[twice] ?? twice, 'MALFORMED_CSV', message));
      file.invalidRows++;
    }
  });
  if (file.dataRows > 0 && !file.columns.has('email')) {
    file.errors = [rosterProblem(1, 'email', 'MISSING_COLUMN', MISSING_EMAIL)];
    file.rows = [];
    file.invalidRows = 0;
  }
  return file;
}
