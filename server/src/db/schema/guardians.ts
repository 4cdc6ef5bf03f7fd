import {
  GUARDIAN_INVITATION_SOURCES,
  GUARDIAN_LINK_SOURCES,
  GUARDIAN_LINK_STATUSES,
  GUARDIAN_RELATIONSHIPS,
} from '@tms/contract';
import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';
import { invitationStatus, tenants, users } from './people.js';

export const guardianRelationship = pgEnum('guardian_relationship', GUARDIAN_RELATIONSHIPS);
export const guardianLinkStatus = pgEnum('guardian_link_status', GUARDIAN_LINK_STATUSES);
export const guardianLinkSource = pgEnum('guardian_link_source', GUARDIAN_LINK_SOURCES);
export const guardianInvitationSource = pgEnum('guardian_invitation_source', GUARDIAN_INVITATION_SOURCES);

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

/**
 * An invitation, by email, to be a guardian of a student of one tenant. Like a membership
 * invitation, it is the invitee's only under the address their identity provider verified
 * (`email_canonical`), and an expired one keeps PENDING in its row (the API shows EXPIRED) until a
 * new invitation to the same student and address needs the pending slot.
 */
export const guardianInvitations = pgTable(
  'guardian_invitations',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    studentUserId: uuid('student_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    emailCanonical: text('email_canonical').notNull(),
    relationship: guardianRelationship('relationship').notNull(),
    status: invitationStatus('status').notNull().default('PENDING'),
    source: guardianInvitationSource('source').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    answeredAt: timestamp('answered_at', { withTimezone: true, mode: 'date' }),
    guardianUserId: uuid('guardian_user_id').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (table) => [
    // One pending invitation per student and address in a tenant.
    uniqueIndex('guardian_invitations_pending_key')
      .on(table.tenantId, table.studentUserId, table.emailCanonical)
      .where(sql`${table.status} = 'PENDING'`),
    // The tenant's list, in creation order (ids are UUIDv7).
    index('guardian_invitations_tenant_id_idx').on(table.tenantId, table.id),
    // GET /me/guardian-invitations: the caller's, by address, in every tenant.
    index('guardian_invitations_email_canonical_idx').on(table.emailCanonical),
    // The erasure of a student, in every tenant.
    index('guardian_invitations_student_idx').on(table.studentUserId),
  ],
);
