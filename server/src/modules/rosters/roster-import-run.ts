import type { RosterImportQuery } from '@tms/contract';
import { sql } from 'drizzle-orm';
import { lockTenantForWrite } from '../../access/access.repository.js';
import { decideAccess, type TenantAccess } from '../../access/decide-access.js';
import type { Database, Executor, Transaction } from '../../db/database.js';
import type { RosterImportRow } from '../../db/schema.js';
import type { Caller } from '../../identity/caller.js';
import type { AuditContext } from '../audit/audit-context.js';
import { applyRosterPlan } from './roster-apply.repository.js';
import type { RosterFile } from './roster-file.js';
import { outcomeOf } from './roster-import-outcome.js';
import {
  finishRosterImport,
  insertRosterImport,
  type RosterImportOutcome,
} from './roster-imports.repository.js';
import { planRoster } from './roster-plan.js';
import { checkRosterRows } from './roster-rows.js';

/*
 * One roster import, done: in its request (a small file) or by a background job (roster-jobs.ts).
 * The file was read and checked first, with no transaction open; one transaction locks the tenant
 * (the lock of every membership write: imports are serialised with each other and with single
 * writes, and nobody sees half of one), decides access again under it, plans, and applies or rolls
 * back.
 */

/** What the caller asked for, with what its request settled: access, caller, audit context. */
export type RosterImportOrder = {
  access: TenantAccess;
  caller: Pick<Caller, 'userId' | 'subject'>;
  audit: AuditContext;
  query: RosterImportQuery;
  file: RosterFile;
};

/** The stages of an import, in order (tests hold an import at one to see it there). */
export type RosterStage = 'started' | 'checked' | 'applied';
export type StageHook = (stage: RosterStage) => Promise<void> | void;

/**
 * A background import's statements may wait for the tenant's lock behind another import, and a
 * 50,000-row plan takes seconds: the service's 5 s bound is for single requests.
 */
const BACKGROUND_STATEMENT_TIMEOUT_MS = 120_000;

/** What roster_imports records of an import, as it starts. */
export const recordOf = (importId: string, { access, caller, query, file }: RosterImportOrder) => ({
  id: importId,
  tenantId: access.tenantId,
  actorUserId: caller.userId,
  mode: query.mode,
  dryRun: query.dryRun,
  rowsTotal: file.dataRows,
});

/** Rolls the transaction back and hands its value out of it. */
class Rollback<T> {
  constructor(readonly value: T) {}
}

/**
 * Checks, plans and (unless a dry run, or refused) applies. The outcome is recorded in the
 * transaction that applied it, so both commit together; a refusal or a dry run rolls back and is
 * recorded after. `queued`: the import was recorded QUEUED (a background job), and is finished
 * now; otherwise it is recorded now, finished.
 */
export async function runRosterImport(
  db: Database,
  importId: string,
  order: RosterImportOrder,
  options: { queued: boolean; onStage?: StageHook },
): Promise<RosterImportRow> {
  const checked = checkRosterRows(order.file);
  await options.onStage?.('checked');
  const record = async (executor: Executor, outcome: RosterImportOutcome) => {
    if (!options.queued)
      return insertRosterImport(executor, { ...recordOf(importId, order), ...outcome, finished: true });
    const finished = await finishRosterImport(executor, order.access.tenantId, importId, outcome);
    // Marked FAILED meanwhile (its heartbeat looked stale to another process): that answer stands.
    if (!finished) throw new Error(`roster import ${importId} was finished by someone else`);
    return finished;
  };
  const result = await db
    .transaction(async (tx) => {
      if (options.queued) await raiseStatementTimeout(tx);
      const access = await accessUnderLock(tx, order);
      const plan = await planRoster(tx, {
        tenantId: access.tenantId,
        access,
        callerUserId: order.caller.userId,
        rows: checked.rows,
        mode: order.query.mode,
        maxRemovalPercent: order.query.maxRemovalPercent,
      });
      const outcome = outcomeOf(importId, order.query, order.file, checked, plan);
      if (order.query.dryRun || outcome.failure) throw new Rollback(outcome);
      await applyRosterPlan(tx, plan, order.audit);
      const row = await record(tx, outcome);
      await options.onStage?.('applied');
      return row;
    })
    .catch((error: unknown) => {
      if (error instanceof Rollback) return error as Rollback<RosterImportOutcome>;
      throw error;
    });
  return result instanceof Rollback ? record(db, result.value) : result;
}

/**
 * A background import may take longer than a request's statement, and waits its turn behind
 * another import of the tenant (imports are serialised, not refused) rather than for the lock
 * timeout of single requests.
 */
async function raiseStatementTimeout(tx: Transaction): Promise<void> {
  const ms = String(BACKGROUND_STATEMENT_TIMEOUT_MS);
  await tx.execute(
    sql`select set_config('statement_timeout', ${ms}, true), set_config('lock_timeout', ${ms}, true)`,
  );
}

/**
 * Access again, under the tenant's lock: the caller may have been demoted or removed since the
 * request was decided (a background import starts later), and the hierarchy checks use this level.
 */
async function accessUnderLock(tx: Transaction, order: RosterImportOrder): Promise<TenantAccess> {
  const { tenantId } = order.access;
  const found = await lockTenantForWrite(tx, tenantId, order.caller.subject);
  const access = decideAccess('tenantAdmin', {
    isSuperAdmin: found.user?.isSuperAdmin ?? false,
    tenant: { tenantId, ...found.tenant },
  });
  if (!access) throw new Error('a tenant decision without an answer');
  return access;
}
