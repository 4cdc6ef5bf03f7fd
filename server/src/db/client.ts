import { mkdirSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { DatabaseConfig } from '../config.js';
import { migrateData } from './data-migrations.js';
import type { Database } from './database.js';
import { migratePostgres } from './migrate-postgres.js';
import { lockDataDirectory } from './pglite-lock.js';
import { forTransactionPooler, SAFETY_TIMEOUTS } from './pooler.js';
import * as schema from './schema.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

export type DatabaseHandle = {
  db: Database;
  kind: DatabaseConfig['kind'];
  close(): Promise<void>;
  /**
   * Destroys the pool's connections, stuck ones included (see Sockets in client.ts); true if it did
   * (it refuses to more than once every few seconds). PostgreSQL only.
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
  return config.kind === 'postgres' ? openPostgres(config, logger) : openPglite(config.dataDir, logger);
}

type QueryLogger = { logQuery(sql: string, params: unknown[]): void } | undefined;

/**
 * postgres.js has no query timeout: a connection whose peer went silent keeps its pool slot until
 * TCP gives up (minutes, or never behind some proxies). The driver is given its sockets by us, so
 * that `recycle` can destroy them: the driver sees its connections close, fails what was on them
 * (503) and connects afresh on the next query. The pool, and the database handle, stay the same.
 */
class Sockets {
  private readonly open = new Set<Socket>();
  private next = 0;
  private recycledAt = 0;

  /**
   * postgres.js's `socket` option: a socket to the next host of the URL, in turn. Returned before it
   * connects: the driver's first writes wait in the socket, and a refused or slow connection
   * reaches the driver as the socket's error and close, as with the sockets it makes itself (its
   * connect_timeout included).
   */
  readonly connect = (options: { host: string[]; port: number[]; path?: string }): Socket => {
    const index = this.next++ % options.host.length;
    const host = options.host[index] as string;
    const port = options.port[index] ?? (options.port[0] as number);
    const socket = options.path ? netConnect(options.path) : netConnect(port, host);
    // Read by the driver for TLS (servername) and in its errors.
    Object.assign(socket, { host, port });
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    return socket;
  };

  /** Destroys every connection, those stuck on a silent peer included; at most once every few seconds. */
  destroyAll(): boolean {
    if (Date.now() - this.recycledAt < RECYCLE_INTERVAL_MS) return false;
    this.recycledAt = Date.now();
    for (const socket of this.open) socket.destroy();
    return true;
  }
}

/** At most one recycling this often, so that an outage does not churn connections. */
const RECYCLE_INTERVAL_MS = 5000;

async function openPostgres(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  logger: QueryLogger,
): Promise<DatabaseHandle> {
  await migratePostgres(config, MIGRATIONS_FOLDER);
  const pooled = config.pooler === 'transaction';
  const sockets = new Sockets();
  // `socket` is documented in postgres.js's README ("Custom socket") but missing from its types.
  const options: postgres.Options<Record<string, never>> & { socket: Sockets['connect'] } = {
    max: config.poolSize,
    // A down database must fail fast (503), not hang the request.
    connect_timeout: 3,
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    socket: sockets.connect,
    // Behind a transaction pooler a named statement may reach a server connection that never
    // prepared it; the timeouts are set per transaction there instead (see pooler.ts).
    ...(pooled && { prepare: false }),
    connection: {
      application_name: 'tenant-membership-service',
      ...(!pooled && SAFETY_TIMEOUTS),
    },
  };
  const client = postgres(config.url, options);
  return {
    db: drizzlePostgres(pooled ? forTransactionPooler(client) : client, { schema, logger }),
    kind: 'postgres',
    close: () => client.end({ timeout: 5 }),
    recycle: () => sockets.destroyAll(),
  };
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
