import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { DatabaseConfig } from '../config.js';
import { migrateData } from './data-migrations.js';
import { type Database, memberOf } from './database.js';
import { lockDataDirectory } from './pglite-lock.js';
import * as schema from './schema.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Serialises migrations when several processes start on one PostgreSQL at once. */
const MIGRATION_LOCK_KEY = 727_1001;

export type DatabaseHandle = {
  db: Database;
  kind: DatabaseConfig['kind'];
  close(): Promise<void>;
  /**
   * postgres.js has no query timeout: a connection whose peer went silent keeps its pool slot
   * until TCP gives up (minutes, or never behind some proxies). This replaces the pool, destroying
   * its connections; true if it did (it refuses to more than once every few seconds).
   */
  recycle?(): boolean;
};

export type OpenDatabaseOptions = {
  /**
   * Called with every statement drizzle sends (tests count them, benchmarks log them). Not the
   * driver's own BEGIN/COMMIT around a transaction, nor the migrations.
   */
  onQuery?: (sql: string, params: unknown[]) => void;
};

export async function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): Promise<DatabaseHandle> {
  const logger = options.onQuery && { logQuery: options.onQuery };
  return config.kind === 'postgres'
    ? openPostgres(config.url, config.poolSize, logger)
    : openPglite(config.dataDir, logger);
}

type QueryLogger = { logQuery(sql: string, params: unknown[]): void } | undefined;

/**
 * drizzle sends its queries unprepared: postgres.js then parses each one, waits for its
 * description and only then runs it, and the server plans it afresh every time. Prepared, and
 * kept per connection by postgres.js, a query is one round trip and one plan. (Behind PgBouncer,
 * this needs its transaction mode with prepared-statement support, 1.21 or later.)
 */
function preparing<T extends postgres.Sql | postgres.TransactionSql>(sql: T): T {
  const target = sql as unknown as {
    unsafe: (query: string, params?: unknown[], options?: object) => unknown;
    begin?: (options: unknown, fn?: unknown) => unknown;
  };
  const unsafe = target.unsafe.bind(sql);
  target.unsafe = (query, params, options) => unsafe(query, params, { ...options, prepare: true });
  if (target.begin) {
    const begin = target.begin.bind(sql);
    type Body = (tx: postgres.TransactionSql) => unknown;
    target.begin = (options, fn) =>
      fn === undefined
        ? begin((tx: postgres.TransactionSql) => (options as Body)(preparing(tx)))
        : begin(options, (tx: postgres.TransactionSql) => (fn as Body)(preparing(tx)));
  }
  return sql;
}

/** At most one pool replacement this often, so that an outage does not churn connections. */
const RECYCLE_INTERVAL_MS = 5000;

async function openPostgres(url: string, poolSize: number, logger: QueryLogger): Promise<DatabaseHandle> {
  await migrateWithLock(url);
  const connect = () =>
    preparing(
      postgres(url, {
        max: poolSize,
        // A down database must fail fast (503), not hang the request.
        connect_timeout: 3,
        idle_timeout: 30,
        max_lifetime: 60 * 30,
        onnotice: () => {},
        connection: {
          application_name: 'tenant-membership-service',
          // A client that vanished mid-transaction (a network cut) would otherwise keep its locks,
          // the tenant's row lock included, for as long as the server keeps its session: every
          // later write to that tenant would wait. Our transactions and statements last
          // milliseconds; these bounds only ever end abandoned ones.
          idle_in_transaction_session_timeout: 5000,
          statement_timeout: 5000,
        },
      }),
    );
  let client = connect();
  let current = drizzlePostgres(client, { schema, logger });
  let recycledAt = 0;
  // Callers keep one `db` for the life of the process; it always speaks through the current pool.
  const db = new Proxy({} as Database, { get: (_target, property) => memberOf(current, property) });
  return {
    db,
    kind: 'postgres',
    close: () => client.end({ timeout: 5 }),
    recycle() {
      if (Date.now() - recycledAt < RECYCLE_INTERVAL_MS) return false;
      recycledAt = Date.now();
      const stuck = client;
      client = connect();
      current = drizzlePostgres(client, { schema, logger });
      // Destroys the old sockets at once, those stuck on a silent peer included.
      void stuck.end({ timeout: 0 }).catch(() => {});
      return true;
    },
  };
}

async function migrateWithLock(url: string): Promise<void> {
  const client = postgres(url, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    const db = drizzlePostgres(client, { schema });
    await migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
    await migrateData(db);
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}

async function openPglite(dataDir: string, logger: QueryLogger): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const unlock = inMemory ? () => {} : await lockDataDirectory(dataDir);
  try {
    const client = await PGlite.create(dataDir, { extensions: { pg_trgm } });
    await migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_FOLDER });
    const db = drizzlePglite(client, { schema, logger });
    await migrateData(db);
    return {
      db,
      kind: 'pglite',
      close: async () => {
        await client.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** Whether the database answers and the schema is migrated. */
export async function isDatabaseReady(db: Database): Promise<boolean> {
  await db.execute(sql`select 1 from tenant_memberships limit 0`);
  return true;
}
