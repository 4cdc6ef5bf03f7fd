import {
  ROSTER_IMPORT_MODES,
  ROSTER_IMPORT_STATUSES,
  type RosterImport,
  type RosterProblem,
  type RosterSummary,
} from '@tms/contract';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgEnum, pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';

export const rosterImportMode = pgEnum('roster_import_mode', ROSTER_IMPORT_MODES);
export const rosterImportStatus = pgEnum('roster_import_status', ROSTER_IMPORT_STATUSES);

/**
 * Every roster import, whether done in its request or in the background, so that GET finds each
 * (modules/rosters). `errors` and `warnings` keep the first ROSTER_PROBLEMS_LISTED_MAX; the
 * summary counts them all. `heartbeat_at` is moved on by the process running a QUEUED or RUNNING
 * import: one left behind by a process that died is marked FAILED once its heartbeat is stale.
 *
 * No foreign key to the tenant: inserting a row that references one takes a KEY SHARE lock on it,
 * which waits for the tenant's write lock (FOR UPDATE, lockTenantForWrite), so a new import would
 * wait for the one that runs. A trigger (migration 0010) deletes a tenant's imports with it. No
 * key to the actor either, as in the audit trail.
 */
export const rosterImports = pgTable(
  'roster_imports',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    actorUserId: uuid('actor_user_id'),
    mode: rosterImportMode('mode').notNull(),
    dryRun: boolean('dry_run').notNull(),
    status: rosterImportStatus('status').notNull(),
    rowsRead: integer('rows_read').notNull().default(0),
    rowsTotal: integer('rows_total').notNull().default(0),
    // Imports recorded before the guardian columns have no `guardianInvitations`: none were made.
    summary: jsonb('summary')
      .$type<Omit<RosterSummary, 'guardianInvitations'> & { guardianInvitations?: number }>()
      .notNull(),
    errors: jsonb('errors').$type<RosterProblem[]>().notNull().default([]),
    warnings: jsonb('warnings').$type<RosterProblem[]>().notNull().default([]),
    failure: jsonb('failure').$type<RosterImport['failure']>(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('roster_imports_tenant_id_idx').on(table.tenantId, table.id),
    // The imports still running somewhere: the search for stale ones reads only these.
    index('roster_imports_unfinished_idx')
      .on(table.heartbeatAt)
      .where(sql`${table.status} in ('QUEUED', 'RUNNING')`),
  ],
);
