import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../support/factories.js';
import { type Spawned, spawnServer } from '../support/spawn-server.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';
import { until } from '../support/until.js';

// WEB_CONCURRENCY=N: a primary and N node:cluster workers sharing one port, on PostgreSQL.
const SECRET = 'web-concurrency-secret-of-at-least-32-bytes';
const ADMIN = unique('cluster-admin');

let database: BareDatabase;
let sql: postgres.Sql;
let workdir: string;
beforeAll(async () => {
  database = await createBareDatabase();
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
  workdir = mkdtempSync(join(tmpdir(), 'tms-cluster-'));
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
  rmSync(workdir, { recursive: true, force: true });
});

/** The node processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function call(baseUrl: string, token: string, method: string, path: string, body?: unknown, agent?: Agent) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${baseUrl}${path}`,
      {
        method,
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Which processes hold the established connections to `port` (ss shows each socket's owner). */
function ownersOfConnections(port: number): Set<number> {
  const lines = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${port} )`]).toString();
  return new Set([...lines.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1])));
}

describe('WEB_CONCURRENCY=2 on PostgreSQL', () => {
  it('serves one port from two workers, replaces one that dies, and drains both on SIGTERM', async () => {
    const server: Spawned = await spawnServer(
      {
        DATABASE_URL: database.url,
        AUTH_JWT_SECRET: SECRET,
        NODE_ENV: 'test',
        SUPER_ADMIN_SUBJECTS: ADMIN,
        WEB_CONCURRENCY: '2',
        RATE_LIMIT_MAX: '0',
      },
      workdir,
    );
    const primary = server.child.pid as number;
    try {
      await until('both workers', () => /2 workers listening on/.test(server.output()), 20_000);
      const workers = childrenOf(primary);
      expect(workers).toHaveLength(2);
      const token = await signDevToken(SECRET, { sub: ADMIN, ttl: '10m' });
      const port = Number(new URL(server.baseUrl).port);

      // Connections kept open, one request each: the primary hands them to the workers in turn.
      const agents = Array.from({ length: 6 }, () => new Agent({ keepAlive: true }));
      const answers = await Promise.all(
        agents.map((agent) => call(server.baseUrl, token, 'GET', '/me', undefined, agent)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      expect([...ownersOfConnections(port)].sort()).toEqual([...workers].sort());
      for (const agent of agents) agent.destroy();

      // A worker that dies after it served is replaced; the port keeps answering meanwhile.
      process.kill(workers[0] as number, 'SIGKILL');
      await until(
        'a replacement worker, listening',
        () => {
          const now = childrenOf(primary);
          const listening = server.output().match(/"msg":"listening on/g) ?? [];
          return now.length === 2 && !now.includes(workers[0] as number) && listening.length === 3;
        },
        20_000,
      );
      expect(server.output()).toContain('a worker died: starting another');
      expect((await call(server.baseUrl, token, 'GET', '/me')).status).toBe(200);

      // A write held by a lock of the test's own is in flight when SIGTERM reaches the primary.
      const slug = unique('cluster');
      const created = await call(server.baseUrl, token, 'POST', '/admin/tenants', {
        name: slug,
        slug,
        owner: { email: `${slug}@x.test` },
      });
      expect(created.status).toBe(201);
      const tenantId = JSON.parse(created.body).data.tenantId as string;
      const current = childrenOf(primary);
      let held: Promise<{ status: number; body: string }> | undefined;
      await sql.begin(async (tx) => {
        await tx`select id from tenants where id = ${tenantId} for update`;
        held = call(server.baseUrl, token, 'POST', `/tenants/${tenantId}/memberships`, {
          role: 'TEACHER',
          email: `held-${slug}@x.test`,
        });
        await until(
          'the write waiting for the lock',
          async () => {
            const [row] = await sql<{ n: number }[]>`
            select count(*)::int as n from pg_stat_activity
            where datname = ${new URL(database.url).pathname.slice(1)} and wait_event_type = 'Lock'`;
            return (row?.n ?? 0) > 0;
          },
          20_000,
        );
        server.child.kill('SIGTERM');
        // Both workers got the signal before the lock is released.
        await until(
          'both workers draining',
          () => (server.output().match(/finishing requests in flight/g) ?? []).length >= 2,
          20_000,
        );
      });
      const answer = await (held as Promise<{ status: number; body: string }>);
      expect(answer.status, answer.body).toBe(201);
      expect(await server.exit).toEqual({ code: 0, signal: null });
      expect(current.filter(alive)).toEqual([]);
      const [row] =
        await sql`select count(*)::int as n from tenant_memberships where tenant_id = ${tenantId}`;
      expect(row?.n).toBe(2);
    } finally {
      if (server.child.exitCode === null) console.warn(server.output().slice(-6000));
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      for (const pid of childrenOf(primary)) process.kill(pid, 'SIGKILL');
    }
  });
});
