import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { DatabaseConfig } from '../config.js';
import { AbandonedBackends } from './abandoned-backends.js';
import { migrateData } from './data-migrations.js';
import type { Database } from './database.js';
import { probeHost } from './host-probe.js';
import { type HostList, HostSelector, parseHostList } from './host-selection.js';
import { migratePostgres } from './migrate-postgres.js';
import { lockDataDirectory } from './pglite-lock.js';
import { timePgliteQueries } from './pglite-timing.js';
import { PoolActivity, type PoolUsage, type QueryObserver } from './pool-activity.js';
import { forTransactionPooler, SAFETY_TIMEOUTS } from './pooler.js';
import * as schema from './schema.js';
import { Sockets } from './sockets.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

export type DatabaseHandle = {
  db: Database;
  /**
   * Where background work (webhook delivery) runs: on PostgreSQL a small pool of its own, so that
   * it never queues behind the requests for a connection (writes to one busy tenant hold every
   * connection of the pool while they wait for its lock). Absent: `db` (PGlite's one connection).
   */
  background?: Database;
  kind: DatabaseConfig['kind'];
  close(): Promise<void>;
  /**
   * Destroys the pool's connections, stuck ones included (see sockets.ts); true if it did
   * (it refuses to more than once every few seconds). PostgreSQL only.
   */
  recycle?(): boolean;
  /** How busy each pool is now (PostgreSQL, when opened with `observeQueries`): see pool-activity.ts. */
  poolUsage?(): PoolUsage[];
};

export type OpenDatabaseOptions = {
  /**
   * Called with every statement drizzle sends (tests count them, benchmarks log them). Not the
   * driver's own BEGIN/COMMIT around a transaction, nor the migrations.
   */
  onQuery?: (sql: string, params: unknown[]) => void;
  /** Connections of the background pool (PostgreSQL); 0: background work shares `db`'s pool. */
  backgroundPoolSize?: number;
  /**
   * Told how long every statement took (metrics), the schema migrations' excepted; on
   * PostgreSQL the handle then also tells how busy its pools are (`poolUsage`).
   */
  observeQueries?: QueryObserver;
  /**
   * PGlite: start from this dump of a data directory (`dumpDataDir`) instead of an empty one. The
   * tests pass one already migrated: creating a data directory is most of opening one.
   */
  pgliteTemplate?: Blob;
};

export async function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): Promise<DatabaseHandle> {
  const logger = options.onQuery && { logQuery: options.onQuery };
  return config.kind === 'postgres'
    ? openPostgres(config, logger, options.backgroundPoolSize ?? 0, options.observeQueries)
    : openPglite(config.dataDir, logger, options.observeQueries, options.pgliteTemplate);
}

type QueryLogger = { logQuery(sql: string, params: unknown[]): void } | undefined;

async function openPostgres(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  logger: QueryLogger,
  backgroundPoolSize: number,
  observeQueries: QueryObserver | undefined,
): Promise<DatabaseHandle> {
  const hosts = parseHostList(config.url);
  const selector = hosts && selectorFor(hosts);
  // The migrations run on the primary of a multi-host URL: postgres.js alone may pick a standby.
  const url = hosts && selector ? hosts.urlFor(await selector.writableHost()) : config.url;
  await migratePostgres(
    { ...config, url, directUrl: await writableUrl(config.directUrl) },
    MIGRATIONS_FOLDER,
  );
  const pooled = config.pooler === 'transaction';
  const backends = pooled ? undefined : new AbandonedBackends();
  const sockets = new Sockets(selector, backends);
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
    ...(selector && FOLLOW_THE_PRIMARY),
    connection: {
      application_name: APPLICATION_NAME,
      ...(!pooled && SAFETY_TIMEOUTS),
    },
  };
  const client = postgres(url, options);
  // The same sockets: a recycle (or a failover) replaces the background pool's connections too.
  const background =
    backgroundPoolSize > 0 ? postgres(url, { ...options, max: backgroundPoolSize }) : undefined;
  const activities = observeQueries && [
    new PoolActivity('requests', config.poolSize, observeQueries).instrument(client),
    ...(background
      ? [new PoolActivity('background', backgroundPoolSize, observeQueries).instrument(background)]
      : []),
  ];
  const drizzleOf = (pool: postgres.Sql) =>
    drizzlePostgres(pooled ? forTransactionPooler(pool) : pool, { schema, logger });
  const db = drizzleOf(client);
  return {
    db,
    ...(background && { background: drizzleOf(background) }),
    ...(activities && { poolUsage: () => activities.map((activity) => activity.usage()) }),
    kind: 'postgres',
    close: async () => {
      backends?.stop();
      await Promise.all([client.end({ timeout: 5 }), background?.end({ timeout: 5 })]);
    },
    recycle: () => {
      if (!sockets.destroyAll()) return false;
      // The backends left behind may hold locks with no timeout to end them: ask the database.
      void backends?.terminate(client, APPLICATION_NAME);
      return true;
    },
  };
}

const APPLICATION_NAME = 'tenant-membership-service';

/**
 * The pool's settings with a multi-host URL, beside the host selection of the sockets.
 * - `target_session_attrs: 'primary'`: the driver checks each new connection's `in_hot_standby`
 *   (reported by PostgreSQL 14+ at startup, queried on older servers) and leaves a standby, its
 *   query failed with CONNECTION_DESTROYED (a 503); the socket's close then makes the selector
 *   probe again. A guard for a host that turned standby since its probe. (Not `read-write`,
 *   which postgres.js 3.4.9 gets wrong on PostgreSQL 14+: see host-selection.ts.)
 * - `backoff`: the driver waits this long before a connection's next attempt, growing with
 *   every failure up to 20 s by default: after a failover's gap, the promoted primary would wait
 *   that long. The selector already bounds the probing of the hosts, so at most 1 s here.
 */
export const FOLLOW_THE_PRIMARY = {
  target_session_attrs: 'primary',
  backoff: (retries: number) => Math.min(1, 0.01 * 3 ** retries) * (0.5 + Math.random() / 2),
} as const;

function selectorFor(hosts: HostList): HostSelector {
  return new HostSelector(hosts.addresses, (address) => probeHost(hosts.urlFor(address), address));
}

/** A single-host URL unchanged; for a multi-host one, the same URL for the host that takes writes now. */
async function writableUrl(url: string | undefined): Promise<string | undefined> {
  const hosts = url === undefined ? undefined : parseHostList(url);
  return hosts ? hosts.urlFor(await selectorFor(hosts).writableHost()) : url;
}

async function openPglite(
  dataDir: string,
  logger: QueryLogger,
  observeQueries: QueryObserver | undefined,
  template?: Blob,
): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const unlock = inMemory ? () => {} : await lockDataDirectory(dataDir);
  try {
    const client = await PGlite.create(dataDir, { extensions: { pg_trgm }, loadDataDir: template });
    await migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_FOLDER });
    if (observeQueries) timePgliteQueries(client, observeQueries);
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

/**
 * Whether the database answers, is migrated, and takes writes. A hot standby (a failover not
 * finished, or a URL that names the wrong node) answers reads but refuses every write (25006):
 * not ready. `transaction_read_only` is on there, and on a primary set read-only. The subquery
 * reads no row: it only makes the statement fail where the schema is missing.
 */
export async function isDatabaseReady(db: Database): Promise<boolean> {
  const result: unknown = await db.execute(sql`
    select current_setting('transaction_read_only') as read_only,
      exists (select 1 from tenant_memberships limit 0) as migrated`);
  // postgres.js answers the rows, PGlite `{ rows }`.
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  return (rows[0] as { read_only?: string } | undefined)?.read_only === 'off';
}
