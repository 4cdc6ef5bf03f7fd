import { type ReadLimits, type RosterFile, readRosterCsv } from '../../src/modules/rosters/roster-file.js';

/** The bytes in chunks of `size`, as a request body arrives; `pulled` counts the chunks taken. */
export function chunked(input: string | Buffer, size = 7) {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  const source = {
    pulled: 0,
    async *[Symbol.asyncIterator]() {
      for (let at = 0; at < bytes.length; at += size) {
        source.pulled++;
        yield bytes.subarray(at, at + size);
      }
    },
  };
  return source;
}

/** Reads `input` (lines joined with `\n` when an array) in small chunks, so that records straddle them. */
export function readCsv(
  input: string | string[] | Buffer,
  limits: Partial<ReadLimits> = {},
  size = 7,
): Promise<RosterFile> {
  return readRosterCsv(chunked(Array.isArray(input) ? `${input.join('\n')}\n` : input, size), limits);
}

export const HEADER = 'email,role,givenName,familyName,startsAt,endsAt';

/** Row numbers and cells, for comparing what was read. */
export const rowsOf = (file: RosterFile) => file.rows.map(({ row, cells }) => ({ row, ...cells }));
/** Problems as `row column code`, for comparing at a glance. */
export const codesOf = (problems: { row: number | null; column: string | null; code: string }[]) =>
  problems.map(({ row, column, code }) => `${row} ${column ?? '-'} ${code}`);
