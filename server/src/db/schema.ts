import {
  INVITATION_STATUSES,
  ROLES,
  ROSTER_IMPORT_MODES,
  ROSTER_IMPORT_STATUSES,
  type RosterImport,
  type RosterProblem,
  type RosterSummary,
  TRANSFER_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
} from '@tms/contract';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

export const membershipRole = pgEnum('membership_role', ROLES);

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
};

/**
 * A user is known by the `sub` of its tokens. An invited user has no subject yet: the first
 * login whose token carries the same email, verified, claims the record. `email` is the address
 * as given, for display; `email_canonical` (see modules/users/email-address.ts) is the one form
 * that decides who is whom, and the only one looked up.
 */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    subject: text('subject').unique('users_subject_key'),
    email: text('email'),
    emailCanonical: text('email_canonical').unique('users_email_canonical_key'),
    displayName: text('display_name'),
    isSuperAdmin: boolean('is_super_admin').notNull().default(false),
    ...timestamps,
    // Set by the erasure of the user (DELETE /admin/users/:userId, modules/users/user-erasure):
    // the row stays, so that the ids the trail and other tables hold still name somebody, but its
    // email, name and subject are a pseudonym or gone, and erasing it again is USER_NOT_FOUND.
    erasedAt: timestamp('erased_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [
    // Member search (`q`) is a substring match: trigram indexes serve ILIKE '%...%'.
    index('users_email_trgm_idx').using('gin', table.email.op('gin_trgm_ops')),
    index('users_display_name_trgm_idx').using('gin', table.displayName.op('gin_trgm_ops')),
  ],
);

export const tenants = pgTable(
  'tenants',
  {
    // UUIDv7, made in TypeScript: time-ordered, so the primary key is also the creation order.
    id: uuid('id').primaryKey(),
    // Stays unique while the tenant is deleted: a restore must find its slug free.
    slug: text('slug').notNull().unique('tenants_slug_key'),
    name: text('name').notNull(),
    version: integer('version').notNull().default(1),
    ...timestamps,
    // Soft delete: set, every route treats the tenant as missing; the purge removes it for good
    // once TENANT_RETENTION_DAYS have passed.
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [index('tenants_deleted_at_idx').on(table.deletedAt).where(sql`${table.deletedAt} is not null`)],
);

export const tenantMemberships = pgTable(
  'tenant_memberships',
  {
    id: uuid('id').notNull(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: membershipRole('role').notNull(),
    // The name a tenant gave when inviting by email: shown in that tenant only, and only until the
    // person's own name (from their token) is known. Never written to the user, whom every tenant sees.
    invitedDisplayName: text('invited_display_name'),
    version: integer('version').notNull().default(1),
    // What member search (`q`) matches, on the membership itself so one index serves a tenant's
    // search: the person's address and name and this tenant's name for them, one per line (a
    // search cannot hold a line break, so it never matches across two). Kept by triggers
    // (migration 0005) whenever the membership or its user changes.
    search: text('search').notNull().default(''),
    ...timestamps,
    // Term dates (null: open-ended) and suspension. SCHEDULED and ENDED are read from the dates at
    // read time; only SUSPENDED is stored, as `suspended_at`. Only an ACTIVE membership grants access.
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }),
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    suspensionReason: text('suspension_reason'),
  },
  (table) => [
    // Every access names the tenant (the scope rule), and pages of one tenant walk it in creation
    // order. With no index on the id alone, the planner cannot walk every tenant's rows in id
    // order looking for one tenant's: a first page costs the same at the millionth row.
    primaryKey({ name: 'tenant_memberships_pkey', columns: [table.tenantId, table.id] }),
    uniqueIndex('tenant_memberships_tenant_user_key').on(table.tenantId, table.userId),
    // Pages filtered by role, and the owner count behind the last-owner rule.
    index('tenant_memberships_tenant_role_id_idx').on(table.tenantId, table.role, table.id),
    // Member search: a substring match, which a trigram index serves.
    index('tenant_memberships_search_trgm_idx').using('gin', table.search.op('gin_trgm_ops')),
    // GET /me: the caller's memberships.
    index('tenant_memberships_user_id_idx').on(table.userId),
    check('tenant_memberships_term_order', sql`${table.startsAt} < ${table.endsAt}`),
  ],
);

export const invitationStatus = pgEnum('invitation_status', INVITATION_STATUSES);

/**
 * Invitations a person accepts (or declines) under their own verified email. EXPIRED is stored
 * lazily: a PENDING row past `expires_at` reads as EXPIRED, and is written so when a new
 * invitation to the same address needs the one pending slot.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    emailCanonical: text('email_canonical').notNull(),
    role: membershipRole('role').notNull(),
    displayName: text('display_name'),
    status: invitationStatus('status').notNull().default('PENDING'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    invitedByUserId: uuid('invited_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date' }),
    acceptedUserId: uuid('accepted_user_id').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (table) => [
    // One pending invitation per address per tenant.
    uniqueIndex('invitations_pending_key')
      .on(table.tenantId, table.emailCanonical)
      .where(sql`${table.status} = 'PENDING'`),
    index('invitations_tenant_id_idx').on(table.tenantId, table.id),
    // GET /me/invitations: the caller's pending ones, by address.
    index('invitations_email_canonical_idx').on(table.emailCanonical),
  ],
);

export const transferStatus = pgEnum('ownership_transfer_status', TRANSFER_STATUSES);

/** Two-step ownership transfers: the nominee accepts. EXPIRED is stored lazily, as for invitations. */
export const ownershipTransfers = pgTable(
  'ownership_transfers',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    // Memberships are keyed by (tenant, id); no foreign key, so that a removed membership leaves
    // the transfer's history readable (its accept then finds nobody and cancels it).
    fromMembershipId: uuid('from_membership_id').notNull(),
    toMembershipId: uuid('to_membership_id').notNull(),
    status: transferStatus('status').notNull().default('PENDING'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    ...timestamps,
  },
  (table) => [
    // One pending transfer per tenant.
    uniqueIndex('ownership_transfers_pending_key').on(table.tenantId).where(sql`${table.status} = 'PENDING'`),
    index('ownership_transfers_tenant_id_idx').on(table.tenantId, table.id),
  ],
);

/**
 * Hits per caller and fixed window, shared by every process on the database. The migration makes
 * it UNLOGGED: counters are worth less than the write-ahead log they would cost, and a crash that
 * forgets them only forgives a few requests.
 */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    key: text('key').notNull(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    hits: integer('hits').notNull(),
  },
  (table) => [primaryKey({ columns: [table.key, table.windowStart] })],
);

/**
 * Idempotency keys (IETF httpapi draft), per caller: a claim while the first request runs
 * (`completed_at` null), then its answer, replayed for 24 h to a request with the same key and the
 * same fingerprint (method, path and body).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** Who holds the claim: a request releases or completes only its own. */
    claimId: uuid('claim_id').notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    fingerprint: text('fingerprint'),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'idempotency_keys_pkey', columns: [table.userId, table.key] }),
    index('idempotency_keys_expires_at_idx').on(table.expiresAt),
  ],
);

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
    summary: jsonb('summary').$type<RosterSummary>().notNull(),
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

export type UserRow = typeof users.$inferSelect;
export type TenantRow = typeof tenants.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
export type AuditEventRow = typeof auditEvents.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type OwnershipTransferRow = typeof ownershipTransfers.$inferSelect;
export type RosterImportRow = typeof rosterImports.$inferSelect;
/** A membership as the service reads it: `search` is for the database's index alone. */
export type MembershipRow = Omit<typeof tenantMemberships.$inferSelect, 'search'>;
