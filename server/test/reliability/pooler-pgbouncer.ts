import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort } from '../support/free-port.js';

export type PgBouncer = {
  port: number;
  /** The database of `directUrl`, through the pooler. */
  url: string;
  stop(): Promise<void>;
  log(): string;
};

/** PgBouncer refuses to run as root: as root, it runs as the `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Debian's PgBouncer (1.18) in transaction mode in front of the database of `directUrl`, with the
 * stock `ignore_startup_parameters` and a pool of 5 server connections: what a managed host puts
 * in front of PostgreSQL. Its files live in a temporary directory; `stop` ends it and removes them.
 */
export async function startPgBouncer(directUrl: string): Promise<PgBouncer> {
  const binary = (() => {
    try {
      return execFileSync('sh', ['-c', 'command -v pgbouncer']).toString().trim();
    } catch {
      throw new Error('pgbouncer is not installed: apt-get install -y pgbouncer (.ci/run does it)');
    }
  })();
  const target = new URL(directUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'tms-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 5',
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits, options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(binary, [ini], { stdio: ['ignore', 'pipe', 'pipe'], ...runAs() });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const via = new URL(directUrl);
  via.hostname = '127.0.0.1';
  via.port = String(port);
  const bouncer: PgBouncer = {
    port,
    url: via.toString(),
    log: () => {
      try {
        return output + readFileSync(join(dir, 'pgbouncer.log'), 'utf8');
      } catch {
        return output;
      }
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Ready once a query goes through it.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = postgres(bouncer.url, { max: 1, prepare: false, connect_timeout: 2, onnotice: () => {} });
    try {
      await probe`select 1`;
      return bouncer;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await bouncer.stop();
        throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await probe.end({ timeout: 1 });
    }
  }
}
