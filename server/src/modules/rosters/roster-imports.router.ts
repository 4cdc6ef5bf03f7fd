import { contract, type RosterImport } from '@tms/contract';
import type { RosterImportRow } from '../../db/schema.js';
import { read, routes, upload } from '../../pipeline/handlers.js';
import { fingerprintBody, readRosterBody, rosterUploadOf } from './roster-body.js';
import { type RosterFile, readRosterJson } from './roster-file.js';
import { assertApplied } from './roster-import-outcome.js';
import { getRosterImport, startRosterImport } from './roster-imports.service.js';
import type { RosterJobs } from './roster-jobs.js';

const toRosterImportDto = (row: RosterImportRow): RosterImport => ({
  importId: row.id,
  tenantId: row.tenantId,
  mode: row.mode,
  dryRun: row.dryRun,
  status: row.status,
  progress: { rowsRead: row.rowsRead, rowsTotal: row.rowsTotal },
  summary: { ...row.summary, guardianInvitations: row.summary.guardianInvitations ?? 0 },
  errors: row.errors,
  warnings: row.warnings,
  failure: row.failure,
  createdAt: row.createdAt.toISOString(),
  finishedAt: row.finishedAt?.toISOString() ?? null,
});

const locationOf = (row: RosterImportRow) => `/tenants/${row.tenantId}/roster-imports/${row.id}`;

/** The file as read from the body: a CSV one while it streamed in, a JSON one from its rows. */
function fileOf(req: object, body: { rows: Record<string, string | null>[] }): RosterFile {
  const upload = rosterUploadOf(req);
  return upload.kind === 'csv' ? upload.file : readRosterJson(body);
}

/**
 * The import is an upload: decided before its file is read, by its own reader (roster-body.ts),
 * with nothing held while the file arrives. The service takes the tenant's lock once the file is
 * read, and decides access again under it.
 */
export const rosterImportsRoutes = (jobs: RosterJobs) =>
  routes(contract.rosterImports, {
    create: upload({
      readBody: readRosterBody,
      // What an Idempotency-Key compares: the query too (a dry run is another request), a CSV file by its hash.
      fingerprint: ({ req, query }) => fingerprintBody(req, query),
      handle: async ({ db, access, caller, audit }, { req, query, body }) => {
        const { queued, row } = await startRosterImport(db, jobs, {
          access,
          caller,
          audit,
          query,
          file: fileOf(req, body),
        });
        if (queued)
          return { status: 202, data: toRosterImportDto(row), headers: { Location: locationOf(row) } };
        assertApplied(row);
        return { status: 200, data: toRosterImportDto(row) };
      },
    }),
    get: read(async ({ db, requester }, { params }) => ({
      status: 200,
      data: toRosterImportDto(await getRosterImport(db, requester, params.importId, jobs.staleAfterMs)),
    })),
  });
