import { DOMAIN_MODES, JOIN_REQUEST_STATUSES } from '@tms/contract';
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';
import { membershipRole, tenants, users } from './people.js';

/**
 * Codes people type to join a tenant. The code itself is never stored readable: `lookup_hash` is
 * its HMAC (found by what a person typed), `sealed_code` its encryption (shown again to those who
 * may list codes); both keys live outside the database (CODE_SECRET, auth/code-keys.ts).
 * Revoking clears neither: a revoked code is refused by `revoked_at`, and its hash keeps the
 * characters from being drawn again by accident.
 */
export const joinCodes = pgTable(
  'join_codes',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    lookupHash: text('lookup_hash').notNull(),
    sealedCode: text('sealed_code').notNull(),
    role: membershipRole('role').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    maxUses: integer('max_uses'),
    uses: integer('uses').notNull().default(0),
    requiresApproval: boolean('requires_approval').notNull().default(false),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    // POST /join finds a code by what was typed, in every tenant at once.
    uniqueIndex('join_codes_lookup_hash_key').on(table.lookupHash),
    index('join_codes_tenant_id_idx').on(table.tenantId, table.id),
  ],
);

export const joinRequestStatus = pgEnum('join_request_status', JOIN_REQUEST_STATUSES);

/**
 * A person's request to join, made with a code that requires approval or by a verified domain of
 * mode `request`. EXPIRED is stored lazily,
 * as for invitations: a PENDING row past `expires_at` reads as EXPIRED.
 */
export const joinRequests = pgTable(
  'join_requests',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    joinCodeId: uuid('join_code_id').references(() => joinCodes.id, { onDelete: 'set null' }),
    // Made at sign-in by a verified domain of mode `request` (then joinCodeId is null).
    domainId: uuid('domain_id').references((): AnyPgColumn => tenantDomains.id, { onDelete: 'set null' }),
    role: membershipRole('role').notNull(),
    status: joinRequestStatus('status').notNull().default('PENDING'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    decidedBy: uuid('decided_by').references(() => users.id, { onDelete: 'set null' }),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    // One pending request per person and tenant.
    uniqueIndex('join_requests_pending_key')
      .on(table.tenantId, table.userId)
      .where(sql`${table.status} = 'PENDING'`),
    index('join_requests_tenant_id_idx').on(table.tenantId, table.id),
    // GET /me/join-requests.
    index('join_requests_user_id_idx').on(table.userId),
  ],
);

/** People a tenant stopped from joining it by a code (or a domain), until an ADMIN lifts it. */
export const joinBlocks = pgTable(
  'join_blocks',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    joinRequestId: uuid('join_request_id'),
    blockedBy: uuid('blocked_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ name: 'join_blocks_pkey', columns: [table.tenantId, table.userId] })],
);

export const domainMode = pgEnum('domain_mode', DOMAIN_MODES);

/**
 * A tenant's mail domain. Only a verified one acts; a domain is verified by one tenant at most,
 * enforced here so that two verifications racing cannot both commit (the partial unique index).
 * Unverified rows of the same domain may sit in several tenants: whoever proves it first has it.
 */
export const tenantDomains = pgTable(
  'tenant_domains',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    mode: domainMode('mode').notNull(),
    role: membershipRole('role').notNull(),
    includeSubdomains: boolean('include_subdomains').notNull().default(false),
    verifiedAt: timestamp('verified_at', { withTimezone: true, mode: 'date' }),
    verifiedBy: uuid('verified_by').references(() => users.id, { onDelete: 'set null' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('tenant_domains_verified_key').on(table.domain).where(sql`${table.verifiedAt} is not null`),
    // A tenant names a domain once.
    uniqueIndex('tenant_domains_tenant_domain_key').on(table.tenantId, table.domain),
    index('tenant_domains_tenant_id_idx').on(table.tenantId, table.id),
  ],
);

/**
 * Each person a tenant's verified domain was applied to (joined, asked for, or found a member or
 * blocked already): once only per tenant and person, so that a person who left, was removed,
 * refused or blocked is never brought back by the domain (docs/joining.md). `domain_id` has no
 * foreign key: removing the domain keeps the record, and a domain named again does not re-apply.
 */
export const domainJoins = pgTable(
  'domain_joins',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    domainId: uuid('domain_id').notNull(),
    appliedAt: timestamp('applied_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: 'domain_joins_pkey', columns: [table.tenantId, table.userId] }),
    // The erasure finds a person's rows in every tenant.
    index('domain_joins_user_id_idx').on(table.userId),
  ],
);
