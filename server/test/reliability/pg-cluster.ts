import { execFile } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from '../support/free-port.js';

const run = promisify(execFile);

/** PG_BIN, or the newest Debian PostgreSQL installed (15 on the CI machines). */
function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    : [];
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (!newest)
    throw new Error(`no PostgreSQL programs under ${root} (set PG_BIN to the directory of initdb)`);
  return join(root, newest, 'bin');
}

/** One PostgreSQL server of the cluster: its own data directory and loopback port. */
export type Node = { name: string; dir: string; port: number; url(database?: string): string };

export type Cluster = {
  primary: Node;
  standby: Node;
  /** `postgres://postgres@127.0.0.1:<primary>,127.0.0.1:<standby>/<database>` plus `query`. */
  multiHostUrl(database: string, query?: string): string;
  /** pg_ctl stop -m immediate: the postmaster and its backends die at once, as in a crash. */
  kill(node: Node): Promise<void>;
  /** pg_ctl promote, which waits until the standby has left recovery. */
  promote(node: Node): Promise<void>;
  /** A direct connection of the test's own to one node (ended by `destroy`). */
  sql(node: Node, database?: string): postgres.Sql;
  /** The servers' logs, for failure messages. */
  logs(): string;
  /** Stops both servers (immediately) and removes every file. Safe to call whatever state it is in. */
  destroy(): Promise<void>;
};

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

/**
 * A primary and a synchronous streaming hot standby (PostgreSQL 15 as on the CI machines), each in
 * a temporary directory on a free loopback port: what Patroni, RDS Multi-AZ or Cloud SQL HA run.
 * Every commit acknowledged by the primary is flushed by the standby first
 * (`synchronous_standby_names = '*'`, set on the primary only, after the base backup, so that the
 * promoted standby does not wait for a standby of its own). Asynchronous (execFile): the load the
 * test drives lives on this process's event loop.
 */
export async function startCluster(): Promise<Cluster> {
  const bin = postgresBin();
  const user = await postgresUser();
  const base = mkdtempSync(join(tmpdir(), 'tms-failover-'));
  if (user) chownSync(base, user.uid, user.gid);
  chmodSync(base, 0o700);
  const exec = (program: string, args: string[]) =>
    run(join(bin, program), args, {
      cwd: base,
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', LANG: 'C' },
      ...user,
    });
  const node = async (name: string): Promise<Node> => {
    const port = await freePort();
    return {
      name,
      dir: join(base, name),
      port,
      url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    };
  };
  const primary = await node('primary');
  const standby = await node('standby');
  const clients: postgres.Sql[] = [];
  const logFile = (n: Node) => join(base, `${n.name}.log`);
  const start = (n: Node) => exec('pg_ctl', ['-D', n.dir, '-l', logFile(n), '-w', '-t', '60', 'start']);
  const stop = (n: Node) => exec('pg_ctl', ['-D', n.dir, '-m', 'immediate', '-w', 'stop']);
  const settings = (n: Node) =>
    [
      `port = ${n.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${base}'`,
      // The test kills processes, never the machine: durability on disk is not what it measures,
      // and fsync on a shared CI disk would only slow the load it drives.
      'fsync = off',
      'max_connections = 100',
      'wal_keep_size = 256MB',
      '',
    ].join('\n');

  const cluster: Cluster = {
    primary,
    standby,
    multiHostUrl: (database, query = '') =>
      `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${database}${query}`,
    kill: async (n) => {
      await stop(n);
    },
    promote: async (n) => {
      await exec('pg_ctl', ['-D', n.dir, '-w', '-t', '60', 'promote']);
    },
    sql: (n, database = 'postgres') => {
      const client = postgres(n.url(database), { max: 2, connect_timeout: 5, onnotice: () => {} });
      clients.push(client);
      return client;
    },
    logs: () =>
      [primary, standby]
        .map((n) => {
          try {
            return `--- ${n.name}\n${readFileSync(logFile(n), 'utf8').slice(-3000)}`;
          } catch {
            return `--- ${n.name}: no log`;
          }
        })
        .join('\n'),
    destroy: async () => {
      await Promise.all(clients.map((client) => client.end({ timeout: 1 }).catch(() => {})));
      for (const n of [primary, standby]) {
        if (existsSync(join(n.dir, 'postmaster.pid'))) await stop(n).catch(() => {});
      }
      rmSync(base, { recursive: true, force: true });
    },
  };

  try {
    const initdb = '-U postgres --auth=trust -E UTF8 --locale=C --no-sync --no-instructions';
    await exec('initdb', ['-D', primary.dir, ...initdb.split(' ')]);
    appendFileSync(join(primary.dir, 'postgresql.conf'), settings(primary));
    await start(primary);
    // -R: a standby (standby.signal, primary_conninfo); -X stream: with the WAL written meanwhile.
    const basebackup = `-h 127.0.0.1 -p ${primary.port} -U postgres -R -X stream -c fast --no-sync`;
    await exec('pg_basebackup', ['-D', standby.dir, ...basebackup.split(' ')]);
    appendFileSync(join(standby.dir, 'postgresql.conf'), settings(standby));
    await start(standby);
    const admin = cluster.sql(primary);
    await admin`alter system set synchronous_standby_names = '*'`;
    await admin`select pg_reload_conf()`;
    // Ready once the standby streams and is the synchronous one.
    const deadline = Date.now() + 30_000;
    while ((await admin`select 1 from pg_stat_replication where sync_state = 'sync'`).length === 0) {
      if (Date.now() > deadline) throw new Error(`the standby never became synchronous\n${cluster.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return cluster;
  } catch (error) {
    const logs = cluster.logs();
    await cluster.destroy();
    throw new Error(`could not build the cluster: ${(error as Error).message}\n${logs}`);
  }
}
