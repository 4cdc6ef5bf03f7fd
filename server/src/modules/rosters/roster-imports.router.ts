import { contract, type RosterImport } from '@tms/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { Database } from '../../db/database.js';
import type { RosterImportRow } from '../../db/schema.js';
import { enveloped } from '../../routing/enveloped.js';
import { auditContextOf, callerOf, requesterOf, tenantAccessOf } from '../../routing/request-context.js';
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
  summary: row.summary,
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
 * A tenant route whose access is decided as a read's is (outside any transaction: the body may
 * take a while to arrive), before its body is read by its own reader (roster-body.ts). The
 * service takes the tenant's lock once the file is read, and decides access again under it.
 */
export function rosterImportsRouter(db: Database, jobs: RosterJobs) {
  const handlers = enveloped(contract.rosterImports, {
    create: async ({ req, query, body }) => {
      const { queued, row } = await startRosterImport(db, jobs, {
        access: tenantAccessOf(req),
        caller: callerOf(req),
        audit: auditContextOf(req),
        query,
        file: fileOf(req, body),
      });
      if (queued)
        return { status: 202, data: toRosterImportDto(row), headers: { Location: locationOf(row) } };
      assertApplied(row);
      return { status: 200, data: toRosterImportDto(row) };
    },
    get: async ({ req, params }) => ({
      status: 200,
      data: toRosterImportDto(
        await getRosterImport(db, requesterOf(req), params.importId, jobs.staleAfterMs),
      ),
    }),
  });
  const create = handlers.create as AppRouteImplementation<typeof contract.rosterImports.create>;
  return {
    ...handlers,
    create: {
      middleware: [readRosterBody],
      handler: (input: Parameters<typeof create>[0]) => {
        // What the Idempotency-Key compares (routing/enveloped.ts): set once validation is done.
        input.req.body = fingerprintBody(input.req, input.query) as typeof input.body;
        return create(input);
      },
    },
  };
}
