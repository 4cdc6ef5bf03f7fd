import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';
import { membershipRole, tenants, users } from './people.js';

/**
 * The credentials of a tenant's directory (SCIM 2.0, modules/scim). Only the SHA-256 of a token is
 * kept: the token is shown once, when made, and a leaked table opens nothing. Revoking deletes the
 * row, so the next request with it is refused; the tenant's deletion (soft) stops them too, since
 * the token's check reads the tenant with it.
 */
export const scimTokens = pgTable(
  'scim_tokens',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique('scim_tokens_token_hash_key'),
    description: text('description'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [index('scim_tokens_tenant_id_idx').on(table.tenantId, table.id)],
);

/**
 * A directory's group, as SCIM pushes it. `role`, set by the tenant's admins (never OWNER), is
 * what membership of the group gives; null: the group gives nothing. The display name is unique
 * in a tenant, as directories expect (a second one is 409 `uniqueness`).
 */
export const scimGroups = pgTable(
  'scim_groups',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    displayName: text('display_name').notNull(),
    externalId: text('external_id'),
    role: membershipRole('role'),
    version: integer('version').notNull().default(1),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('scim_groups_tenant_display_name_key').on(table.tenantId, table.displayName),
    index('scim_groups_tenant_id_idx').on(table.tenantId, table.id),
  ],
);

/**
 * Who is in a group: the person, not the membership. A user the directory removed and brings back
 * (a POST with its externalId) finds its groups, and so its role, again.
 */
export const scimGroupMembers = pgTable(
  'scim_group_members',
  {
    groupId: uuid('group_id')
      .notNull()
      .references(() => scimGroups.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    addedAt: timestamp('added_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: 'scim_group_members_pkey', columns: [table.groupId, table.userId] }),
    // A person's groups, for the role they give.
    index('scim_group_members_user_id_idx').on(table.userId),
  ],
);
