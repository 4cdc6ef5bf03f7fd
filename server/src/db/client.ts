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
import { preparingFixedTexts } from './prepared-texts.js';
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
   * Where work runs whose statements may take minutes (the purge, background roster imports, the
   * member export): on PostgreSQL a small pool of its own, so that such work never holds a
   * connection the requests need, and a connection of it is not taken for stuck while a long
   * statement runs. Absent: `db` (PGlite's one connection).
   */
  long?: Database;
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
  /** Told each time a connection that stopped answering was replaced (see sockets.ts). */
  onConnectionReplaced?: () => void;
  /** Told when ending the sessions of replaced connections failed otherwise than by an outage. */
  onBackendsNotEnded?: (error: unknown) => void;
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
    ? openPostgres(config, logger, options)
    : openPglite(config.dataDir, logger, options.observeQueries, options.pgliteTemplate);
}

type QueryLogger = { logQuery(sql: string, params: unknown[]): void } | undefined;

async function openPostgres(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  logger: QueryLogger,
  { backgroundPoolSize = 0, observeQueries, onConnectionReplaced, onBackendsNotEnded }: OpenDatabaseOptions,
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
  // Each pool's sockets end the backends they abandon through that same pool, once it answers.
  const socketsFor = (
    stallMs: number,
    pool: () => postgres.Sql | undefined,
    onCut?: (since: number) => void,
  ) => {
    const backends = pooled ? undefined : new AbandonedBackends(onBackendsNotEnded);
    const sockets = new Sockets({
      ...(selector && { selector }),
      ...(backends && { backends }),
      stallMs,
      unsureStallMs: (IDLE_TIMEOUT_SECONDS + 1) * 1000,
      ...(onCut && { onCut }),
      onStalled: () => {
        onConnectionReplaced?.();
        const sql = pool();
        if (backends && sql) void backends.terminate(sql, APPLICATION_NAME);
      },
    });
    return { sockets, backends };
  };
  // The long pool's own stall takes minutes: a cut its idle connections share is learnt from the
  // requests' (a failover's old flows would otherwise hold the next purge or export that long).
  const requests = socketsFor(
    STALL_MS,
    () => client,
    (since) => longWork.sockets.closeUnheardSince(since),
  );
  const longWork = socketsFor(LONG_STALL_MS, () => long);
  // `socket` is documented in postgres.js's README ("Custom socket") but missing from its types.
  const options: postgres.Options<Record<string, never>> & { socket: Sockets['connect'] } = {
    max: config.poolSize,
    // A down database must fail fast (503), not hang the request.
    connect_timeout: 3,
    idle_timeout: IDLE_TIMEOUT_SECONDS,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    socket: requests.sockets.connect,
    backoff: RECONNECT_BACKOFF,
    // Behind a transaction pooler a named statement may reach a server connection that never
    // prepared it; the timeouts are set per transaction there instead (see pooler.ts).
    ...(pooled && { prepare: false }),
    ...(selector && FOLLOW_THE_PRIMARY),
    connection: {
      application_name: APPLICATION_NAME,
      ...(!pooled && SAFETY_TIMEOUTS),
    },
  };
  const open = (settings: typeof options): postgres.Sql =>
    pooled ? postgres(url, settings) : preparingFixedTexts(postgres(url, settings));
  const client: postgres.Sql = open(options);
  // Webhook delivery's statements are as short as the requests': the same sockets, watched alike.
  const background = backgroundPoolSize > 0 ? open({ ...options, max: backgroundPoolSize }) : undefined;
  const long: postgres.Sql = open({
    ...options,
    max: LONG_POOL_SIZE,
    socket: longWork.sockets.connect,
  } as typeof options);
  const activities = observeQueries && [
    new PoolActivity('requests', config.poolSize, observeQueries).instrument(client),
    ...(background
      ? [new PoolActivity('background', backgroundPoolSize, observeQueries).instrument(background)]
      : []),
  ];
  const drizzleOf = (pool: postgres.Sql) =>
    drizzlePostgres(pooled ? forTransactionPooler(pool) : pool, { logger });
  const db = drizzleOf(client);
  return {
    db,
    ...(background && { background: drizzleOf(background) }),
    long: drizzleOf(long),
    ...(activities && { poolUsage: () => activities.map((activity) => activity.usage()) }),
    kind: 'postgres',
    close: async () => {
      for (const { sockets, backends } of [requests, longWork]) {
        sockets.stop();
        backends?.stop();
      }
      await Promise.all([
        client.end({ timeout: 5 }),
        background?.end({ timeout: 5 }),
        long.end({ timeout: 5 }),
      ]);
    },
  };
}

const APPLICATION_NAME = 'tenant-membership-service';
const IDLE_TIMEOUT_SECONDS = 30;
/**
 * A connection of the request pool waiting this long for any answer has stopped answering: every
 * statement it runs ends by then (statement_timeout, lock_timeout and their margin; see pooler.ts).
 */
const STALL_MS = SAFETY_TIMEOUTS.statement_timeout + 1000;
/** The long pool's statements may run 15 minutes (the purge's statement_timeout). */
const LONG_STALL_MS = 16 * 60_000;
/** The purge, two roster imports running in the background, two member exports (pipeline/pipelines.ts). */
const LONG_POOL_SIZE = 5;

/**
 * The pool's settings with a multi-host URL, beside the host selection of the sockets.
 * - `target_session_attrs: 'primary'`: the driver checks each new connection's `in_hot_standby`
 *   (reported by PostgreSQL 14+ at startup, queried on older servers) and leaves a standby, its
 *   query failed with CONNECTION_DESTROYED (a 503); the socket's close then makes the selector
 *   probe again. A guard for a host that turned standby since its probe. (Not `read-write`,
 *   which postgres.js 3.4.9 gets wrong on PostgreSQL 14+: see host-selection.ts.)
 */
export const FOLLOW_THE_PRIMARY = { target_session_attrs: 'primary' } as const;

/**
 * How long the driver waits before a connection's next attempt, growing with every failure: its
 * default grows to 20 s, so that after a failover's gap the promoted primary would wait that long
 * (a balancer's address included). The sockets already pace the tries while the database cannot
 * be reached (sockets.ts), so at most 1 s here, with jitter.
 */
export const RECONNECT_BACKOFF = (retries: number) =>
  Math.min(1, 0.01 * 3 ** retries) * (0.5 + Math.random() / 2);

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
    const db = drizzlePglite(client, { logger });
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
