import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

import { users } from './people.js';

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
 * The data migrations (db/data-migrations.ts) that ran once and are done: a change to existing
 * rows that SQL alone cannot make, recorded so that no later start pays for it again.
 */
export const dataMigrations = pgTable('data_migrations', {
  name: text('name').primaryKey(),
  appliedAt: timestamp('applied_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
