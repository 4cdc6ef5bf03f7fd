import { WEBHOOK_DELIVERY_STATUSES } from '@tms/contract';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgEnum,
  pgSequence,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

import { timestamps } from './columns.js';
import { tenants } from './people.js';

/**
 * The audit trail: one row per committed change, written in the change's own transaction
 * (modules/audit/audit-events.repository.ts). Append-only: a trigger (migration 0007) refuses
 * UPDATE and DELETE unless the transaction set `app.audit_maintenance` (the retention purge, the
 * erasure of a user). No foreign keys: an event outlives the tenant, user and rows it names.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: uuid('id').primaryKey(),
    // Null for platform events (super-administrator grants, user erasure).
    tenantId: uuid('tenant_id'),
    // Per tenant (and one for the platform's events): 1, 2, 3… in commit order, no gaps.
    sequence: bigint('sequence', { mode: 'number' }).notNull(),
    action: text('action').notNull(),
    actorUserId: uuid('actor_user_id'),
    actorSubject: text('actor_subject'),
    actorIsSuperAdmin: boolean('actor_is_super_admin').notNull(),
    targetType: text('target_type').notNull(),
    targetId: uuid('target_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    requestId: text('request_id'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    // A tenant's list, newest first, and the guarantee of one event per number.
    uniqueIndex('audit_events_tenant_sequence_key').on(table.tenantId, table.sequence),
    uniqueIndex('audit_events_platform_sequence_key')
      .on(table.sequence)
      .where(sql`${table.tenantId} is null`),
    // The list across tenants (newest first), and the retention purge.
    index('audit_events_occurred_at_id_idx').on(table.occurredAt, table.id),
    index('audit_events_actor_user_id_idx').on(table.actorUserId),
    index('audit_events_target_id_idx').on(table.targetId),
  ],
);

/**
 * The last sequence number given per tenant (`scope` is the tenant's id; the nil UUID for
 * platform events). Taken with `UPDATE … SET last = last + 1` in the change's transaction: the
 * row stays locked until commit, so numbers follow commit order, and a rollback gives its back.
 */
export const auditSequences = pgTable('audit_sequences', {
  scope: uuid('scope').primaryKey(),
  last: bigint('last', { mode: 'number' }).notNull(),
});

/**
 * Where a tenant's events (tenant_id set) or every event (tenant_id null: a platform endpoint) are
 * POSTed. The secret signs deliveries and so is kept as is; the previous one keeps signing, beside
 * it, for a day after a rotation. `failing_since` is the first failed attempt since the last
 * success: a day of it disables the endpoint.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretUntil: timestamp('previous_secret_until', { withTimezone: true, mode: 'date' }),
    failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [index('webhook_endpoints_tenant_id_idx').on(table.tenantId, table.createdAt, table.id)],
);

/** The outbox's order (see webhookDeliveries); created by the migration 0008. */
export const webhookDeliveryPosition = pgSequence('webhook_delivery_position', { startWith: 1 });

export const webhookDeliveryStatus = pgEnum('webhook_delivery_status', WEBHOOK_DELIVERY_STATUSES);

/**
 * The outbox: one row per event and endpoint that wants it, written by recordAuditEvent in the
 * change's transaction. `position` comes from one sequence, taken after the tenant's audit counter
 * is locked, so it follows each tenant's commit order; an endpoint's deliveries go out one at a
 * time, lowest position first.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    auditEventId: uuid('audit_event_id').notNull(),
    position: bigint('position', { mode: 'number' }).notNull(),
    status: webhookDeliveryStatus('status').notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    lastResponse: text('last_response'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    // The head of each endpoint's queue.
    index('webhook_deliveries_pending_idx')
      .on(table.endpointId, table.position)
      .where(sql`${table.status} = 'PENDING'`),
    // The deliveries list, newest first.
    index('webhook_deliveries_endpoint_position_idx').on(table.endpointId, table.position),
  ],
);
