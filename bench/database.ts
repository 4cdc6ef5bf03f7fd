import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { pgliteSql, postgresSql, type Sql, serviceDatabase } from './sql.js';

/**
 * The run's own database, migrated by the service's own openDatabase (server/dist). On PostgreSQL a fresh database
 * beside the admin URL's, dropped at the end. On PGlite a temporary directory; since PGlite is one
 * process's database, the bare handler gets a copy of it, made once the seed is in.
 */
export type BenchDatabase = {
  kind: 'postgres' | 'pglite';
  /** On PostgreSQL, the database's name (its backends' CPU is measured). */
  name?: string;
  /** The harness's own connection; on PGlite only until the servers start. */
  open(): Promise<Sql>;
  serviceEnv: Record<string, string>;
  /** Call after seeding; on PGlite it copies the seeded directory. */
  bareEnv(): Record<string, string>;
  describe(sql: Sql): Promise<string>;
  drop(): Promise<void>;
};

export async function createBenchDatabase(
  adminUrl: string | undefined,
  tmpDir: string,
): Promise<BenchDatabase> {
  return adminUrl ? createPostgres(adminUrl) : createPglite(tmpDir);
}

const version = async (sql: Sql) =>
  String((await sql.query<{ v: string }>('select version() as v'))[0]?.v ?? '').replace(/ on .*/, '');

async function createPostgres(adminUrl: string): Promise<BenchDatabase> {
  const name = `tms_bench_${process.pid}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await (await serviceDatabase.openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 })).close();
  return {
    kind: 'postgres',
    name,
    open: async () => postgresSql(url.toString(), { max: 2 }),
    serviceEnv: { DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: '10' },
    bareEnv: () => ({ BARE_DATABASE_URL: url.toString() }),
    describe: version,
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

async function createPglite(tmpDir: string): Promise<BenchDatabase> {
  const dataDir = join(tmpDir, 'pglite-service');
  return {
    kind: 'pglite',
    open: () => pgliteSql(dataDir),
    serviceEnv: { PGLITE_DATA_DIR: dataDir },
    bareEnv: () => {
      const copy = join(tmpDir, 'pglite-bare');
      cpSync(dataDir, copy, { recursive: true });
      rmSync(join(copy, 'tms.lock'), { force: true });
      return { BARE_PGLITE_DIR: copy };
    },
    describe: async (sql) => `PGlite (${await version(sql)})`,
    drop: async () => {},
  };
}

/** Until no other query runs on the bench database (a minute at most). */
export async function untilIdle(sql: Sql): Promise<void> {
  const active = `select count(*)::int as n from pg_stat_activity where datname = current_database()
    and state = 'active' and pid <> pg_backend_pid() and backend_type in ('client backend', 'parallel worker')`;
  for (let waited = 0; waited < 60_000; waited += 50) {
    if ((await sql.query<{ n: number }>(active))[0]?.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
