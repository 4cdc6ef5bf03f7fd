import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { DatabaseConfig } from '../config.js';
import { migrateData } from './data-migrations.js';
import { inTransaction } from './pooler.js';

/** Serialises migrations when several processes start on one PostgreSQL at once. */
const MIGRATION_LOCK_KEY = 727_1001;

type PostgresConfig = Extract<DatabaseConfig, { kind: 'postgres' }>;

/**
 * Migrates the schema, then the data, one process at a time. Through DATABASE_DIRECT_URL when it
 * is set (the database itself, past any pooler), under a session lock. Through a transaction
 * pooler, a session lock is not one: its unlock may reach another server connection (the lock
 * then stays held, and the next start hangs), and another client's statements may run in between.
 * There everything runs in one transaction that holds a transaction-level lock, released by its
 * COMMIT or ROLLBACK whatever happens to the client.
 */
export async function migratePostgres(
  config: Pick<PostgresConfig, 'url' | 'pooler' | 'directUrl'>,
  migrationsFolder: string,
): Promise<void> {
  if (!config.directUrl && config.pooler === 'transaction')
    return migrateInOneTransaction(config.url, migrationsFolder);
  const client = postgres(config.directUrl ?? config.url, {
    max: 1,
    connect_timeout: 10,
    onnotice: () => {},
  });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    const db = drizzlePostgres(client);
    await migrate(db, { migrationsFolder });
    await migrateData(db);
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}

async function migrateInOneTransaction(url: string, migrationsFolder: string): Promise<void> {
  const client = postgres(url, { max: 1, connect_timeout: 10, prepare: false, onnotice: () => {} });
  try {
    await client.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
      const db = drizzlePostgres(inTransaction(tx, client.options));
      await migrate(db, { migrationsFolder });
      await migrateData(db);
    });
  } finally {
    await client.end({ timeout: 5 });
  }
}
