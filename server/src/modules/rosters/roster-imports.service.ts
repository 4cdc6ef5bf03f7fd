import { emptyRosterSummary, ROSTER_ROWS_IN_REQUEST_MAX } from '@tms/contract';
import { v7 as uuidv7 } from 'uuid';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import type { RosterImportRow } from '../../db/schema.js';
import { RosterImportNotFoundError, ServiceUnavailableError } from '../../errors/index.js';
import { type RosterImportOrder, recordOf, runRosterImport } from './roster-import-run.js';
import {
  failStaleRosterImports,
  findRosterImportAs,
  insertRosterImport,
} from './roster-imports.repository.js';
import type { RosterJobs } from './roster-jobs.js';

/*
 * A roster import: the file is read and checked first, with no transaction open (a 10 MB upload
 * must not hold the tenant's lock); then one transaction locks the tenant (the lock of every
 * membership write: imports are serialised with each other and with single writes, and nobody sees
 * half of one), decides access again under it, plans, and applies or rolls back. Every import is
 * recorded in roster_imports, so GET finds it, whatever its outcome.
 */

export type { RosterImportOrder, RosterStage, StageHook } from './roster-import-run.js';

/**
 * POST: a file of up to ROSTER_ROWS_IN_REQUEST_MAX data rows is done in the request; a larger one
 * is recorded QUEUED and handed to the background jobs of this process.
 */
export async function startRosterImport(
  db: Database,
  jobs: RosterJobs,
  order: RosterImportOrder,
): Promise<{ queued: boolean; row: RosterImportRow }> {
  const importId = uuidv7();
  const { file } = order;
  if (file.dataRows <= ROSTER_ROWS_IN_REQUEST_MAX) {
    return { queued: false, row: await runRosterImport(db, importId, order, { queued: false }) };
  }
  if (!jobs.accepting)
    throw new ServiceUnavailableError('The server is stopping; send the file again shortly');
  const row = await insertRosterImport(db, {
    ...recordOf(importId, order),
    status: 'QUEUED',
    rowsRead: 0,
    summary: emptyRosterSummary(),
    errors: [],
    warnings: [],
    failure: null,
    finished: false,
  });
  jobs.enqueue({ importId, order });
  return { queued: true, row };
}

/**
 * GET: the import, within the tenant. One still QUEUED or RUNNING whose heartbeat stopped belongs
 * to a process that died: it is marked FAILED as it is seen.
 */
export async function getRosterImport(
  db: Database,
  requester: Requester,
  importId: string,
  staleAfterMs: number,
): Promise<RosterImportRow> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a roster import route without a tenant');
  const { items } = await readAsCaller(db, requester, (subject) =>
    findRosterImportAs(db, subject, tenantId, importId),
  );
  const [found] = items;
  if (!found) throw new RosterImportNotFoundError(importId);
  if (found.finishedAt !== null || Date.now() - found.heartbeatAt.getTime() < staleAfterMs) return found;
  const [failed] = await failStaleRosterImports(db, staleAfterMs, { tenantId, importId });
  return failed ?? found;
}
