import { GUARDIAN_LINK_SOURCES, GUARDIAN_LINK_STATUSES, GUARDIAN_RELATIONSHIPS } from '@tms/contract';
import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';
import { tenants, users } from './people.js';

export const guardianRelationship = pgEnum('guardian_relationship', GUARDIAN_RELATIONSHIPS);
export const guardianLinkStatus = pgEnum('guardian_link_status', GUARDIAN_LINK_STATUSES);
export const guardianLinkSource = pgEnum('guardian_link_source', GUARDIAN_LINK_SOURCES);

/**
 * A guardian (a user) linked to a student of one tenant. The guardian holds no membership: the
 * link opens none of the tenant's routes, it only says whose guardian they are. A revoked link is
 * kept (REVOKED, `revoked_at`) so the school can see it was; a second one for the same pair is the
 * same row made ACTIVE again. Erasing either user deletes their links.
 */
export const guardianLinks = pgTable(
  'guardian_links',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    studentUserId: uuid('student_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    guardianUserId: uuid('guardian_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    relationship: guardianRelationship('relationship').notNull(),
    status: guardianLinkStatus('status').notNull(),
    source: guardianLinkSource('source').notNull(),
    ...timestamps,
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [
    uniqueIndex('guardian_links_tenant_student_guardian_key').on(
      table.tenantId,
      table.studentUserId,
      table.guardianUserId,
    ),
    // The tenant's list, in creation order (ids are UUIDv7).
    index('guardian_links_tenant_id_idx').on(table.tenantId, table.id),
    // GET /me/wards and GET /me: the caller's links as a guardian, in every tenant.
    index('guardian_links_guardian_idx').on(table.guardianUserId),
    // GET /me/guardians: the caller's links as a student, in every tenant.
    index('guardian_links_student_idx').on(table.studentUserId),
  ],
);

/**
 * A pairing code a guardian redeems once to be linked to the student. Only its keyed hash is kept
 * (auth/code-keys.ts): the code is shown once, at creation, and a database read gives none away.
 */
export const pairingCodes = pgTable(
  'pairing_codes',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    studentUserId: uuid('student_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('pairing_codes_code_hash_key').on(table.codeHash),
    // The student's live codes, oldest first: the fifth-code rule.
    index('pairing_codes_tenant_student_idx')
      .on(table.tenantId, table.studentUserId, table.id)
      .where(sql`${table.usedAt} is null and ${table.revokedAt} is null`),
  ],
);
