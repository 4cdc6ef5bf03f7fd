import { INVITATION_STATUSES, ROLES, TRANSFER_STATUSES } from '@tms/contract';
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

import { timestamps } from './columns.js';

export const membershipRole = pgEnum('membership_role', ROLES);

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
    // 'scim': made or taken over by the tenant's directory (modules/scim), which alone then
    // decides the role, the status and the removal; null: managed by hand.
    managedBy: text('managed_by'),
    // The directory's own id for the person (SCIM `externalId`), kept as it sent it.
    externalId: text('external_id'),
    // The name parts the directory sent (SCIM `name`), given back as sent; the display name it
    // derives is `invited_display_name`'s, shown until the person's own is known.
    scimName: jsonb('scim_name').$type<{ givenName?: string; familyName?: string; formatted?: string }>(),
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
    check('tenant_memberships_managed_by', sql`${table.managedBy} in ('scim')`),
    // A directory's look-up by externalId (SCIM filters, a returning user's POST).
    index('tenant_memberships_tenant_external_id_idx')
      .on(table.tenantId, table.externalId)
      .where(sql`${table.externalId} is not null`),
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
