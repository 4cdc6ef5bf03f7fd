import { type ExportMembershipsQuery, ROSTER_EXPORT_COLUMNS } from '@tms/contract';
import { stringify } from 'csv-stringify/sync';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import { neutraliseCell } from './csv-cells.js';
import {
  type ExportedMembership,
  findExportTenantAs,
  readMembershipsForExport,
} from './membership-export.repository.js';

type ExportColumn = (typeof ROSTER_EXPORT_COLUMNS)[number];
/** One exported line: the columns in their order, null where there is no value. */
export type ExportRecord = Record<ExportColumn, string | null>;

/** An export whose reading has begun: its first chunk is read, the rest comes as it is asked for. */
export type MembershipExport = {
  filename: string;
  contentType: string;
  /** The file, a batch of rows per chunk. `return()` stops the reading (and frees its connection). */
  chunks: AsyncIterableIterator<string>;
};

/**
 * Decides access, then begins reading: the first chunk is read before anything is answered, so a
 * refusal, or a database that cannot open the reading, is still an error the envelope can carry.
 */
export async function openMembershipExport(
  db: Database,
  requester: Requester,
  query: ExportMembershipsQuery,
): Promise<MembershipExport> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('the membership export without a tenant');
  const { items } = await readAsCaller(db, requester, (subject) => findExportTenantAs(db, subject, tenantId));
  const [tenant] = items;
  if (!tenant) throw new Error(`access to tenant ${tenantId} granted, but the tenant was not read`);
  const batches = readMembershipsForExport(db, { tenantId, role: query.role, statuses: query.status });
  const chunks = query.format === 'csv' ? csvChunks(batches) : ndjsonChunks(batches);
  const first = await chunks.next();
  // A slug is [a-z0-9-]: safe in a header's quoted filename. The id for anything else.
  const name = /^[a-z0-9-]+$/.test(tenant.slug) ? tenant.slug : tenantId;
  return {
    filename: `${name}-memberships.${query.format}`,
    contentType: query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    chunks: startingWith(first, chunks),
  };
}

/**
 * The export's line for a membership. The name is split as a roster has it: the first word is the
 * given name, the rest the family name (`Anna Maria de la Cruz`: `Anna`, `Maria de la Cruz`).
 */
export function toExportRecord(m: ExportedMembership): ExportRecord {
  const name = m.displayName?.trim() ?? '';
  const space = name.search(/\s/);
  return {
    email: m.email,
    role: m.role,
    givenName: name === '' ? null : space < 0 ? name : name.slice(0, space),
    familyName: space < 0 ? null : name.slice(space).trim(),
    startsAt: m.startsAt,
    endsAt: m.endsAt,
    userId: m.userId,
    tenantMembershipId: m.tenantMembershipId,
    status: m.status,
  };
}

/**
 * With a byte order mark, which tells spreadsheet programs the file is UTF-8 (Excel reads a CSV
 * without one in the system's legacy code page, and every accented name comes out garbled). The
 * import reads files with or without it.
 */
const CSV_HEADER = `\uFEFF${stringify([[...ROSTER_EXPORT_COLUMNS]])}`;

const csvCellsOf = (record: ExportRecord) =>
  ROSTER_EXPORT_COLUMNS.map((column) => neutraliseCell(record[column] ?? ''));

/** The header, then a chunk per batch. csv-stringify quotes; formula-like cells are neutralised. */
async function* csvChunks(batches: AsyncIterable<ExportedMembership[]>) {
  let header = CSV_HEADER;
  for await (const batch of batches) {
    yield header + stringify(batch.map((m) => csvCellsOf(toExportRecord(m))));
    header = '';
  }
  if (header !== '') yield header;
}

/** One JSON object per line, with the CSV's keys; values as they are (no spreadsheet reads this). */
async function* ndjsonChunks(batches: AsyncIterable<ExportedMembership[]>) {
  for await (const batch of batches) {
    let chunk = '';
    for (const m of batch) chunk += `${JSON.stringify(toExportRecord(m))}\n`;
    yield chunk;
  }
}

/**
 * The chunk already read, then the rest. Closing it closes the generator under it even before
 * the first chunk was handed on: that generator was started, and holds the reading open.
 */
function startingWith(
  first: IteratorResult<string, void>,
  rest: AsyncGenerator<string, void, undefined>,
): AsyncIterableIterator<string> {
  let pending: IteratorResult<string, void> | undefined = first;
  return {
    next: async () => {
      const step = pending ?? (await rest.next());
      pending = undefined;
      return step;
    },
    return: async () => {
      pending = undefined;
      return rest.return(undefined);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
