import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../support/factories.js';
import { latency, MembershipLoad, now, tally } from './membership-load.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';
import { type Spawned, startServerProcess, stopServerProcess } from './server-process.js';
import { TcpProxy } from './tcp-proxy.js';
import { type Answer, type Caller, callerFor, dataOf, sleep } from './timed-fetch.js';

// What server/test/process/lifecycle.test.ts does not cover: SIGTERM while PostgreSQL requests are
// really in flight (held by a silent proxy), and acknowledged PGlite writes surviving SIGKILL.
const SECRET = 'shutdown-test-secret-of-at-least-32-bytes';
const ADMIN = unique('shutdown-admin');
const ok = (a: Answer) => a.status >= 200 && a.status < 300;

let workdir: string;
beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-shutdown-'));
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

async function connection(port: number): Promise<'accepted' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', () => resolve('refused'));
  });
}

async function seedTenant(call: Caller): Promise<string> {
  const slug = unique('shutdown');
  const created = await call('POST', '/admin/tenants', {
    name: slug,
    slug,
    owner: { email: `${slug}@x.test` },
  });
  if (created.status !== 201) throw new Error(`seeding answered ${created.status}`);
  return dataOf<{ tenantId: string }>(created).tenantId;
}

describe.skipIf(!postgresUrl())('SIGTERM under load, on PostgreSQL', () => {
  let database: RelDatabase;
  beforeAll(async () => {
    database = await createRelDatabase();
  });
  afterAll(() => database?.drop());

  const poolConnections = async () => {
    const [row] = await database.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = ${database.name} and application_name = 'tenant-membership-service'`;
    return row?.n ?? -1;
  };

  it('finishes the requests in flight with their answers, refuses new connections, ends the pool, exits 0', async () => {
    const proxy = await TcpProxy.toDatabase(database.url);
    let server: Spawned | undefined;
    try {
      server = await startServerProcess(
        {
          DATABASE_URL: database.urlVia(proxy.port),
          AUTH_JWT_SECRET: SECRET,
          SUPER_ADMIN_SUBJECTS: ADMIN,
          // The silence below holds requests up to ~1.5 s on a loaded machine: below this, the
          // service would take it for a database that stopped answering and refuse the held
          // writes 503 at once (what the overload and outage suites show), which is not this test's subject.
          ADMISSION_MAX_WAIT_MS: '3000',
        },
        workdir,
      );
      const port = Number(new URL(server.baseUrl).port);
      const call = callerFor(server.baseUrl, await signDevToken(SECRET, { sub: ADMIN, ttl: '10m' }));
      const tenantId = await seedTenant(call);
      const load = new MembershipLoad(call, tenantId);
      load.start(4);
      await sleep(1000);
      expect(await poolConnections(), 'pool connections before the signal').toBeGreaterThan(0);

      // The database goes silent: from now on every request waits in the service for its answer.
      proxy.silent();
      const base = `/tenants/${tenantId}/memberships`;
      const held = [
        ...Array.from({ length: 8 }, () => call('GET', `${base}?limit=10`)),
        ...Array.from({ length: 4 }, () =>
          call('POST', base, { role: 'TEACHER', email: `held-${randomUUID().slice(0, 8)}@x.test` }),
        ),
      ];
      await sleep(400);
      const signalAt = now();
      server.child.kill('SIGTERM');
      let refusedAfterMs: number | undefined;
      while (now() - signalAt < 1000 && refusedAfterMs === undefined) {
        if ((await connection(port)) === 'refused') refusedAfterMs = Math.round(now() - signalAt);
        else await sleep(10);
      }
      const endedBefore = { ...proxy.ended };
      // The database answers again, well within the 4 s deadline: the held requests complete.
      await proxy.restore('resume');
      const heldAnswers = await Promise.all(held);
      await load.stop();
      const exit = await stopServerProcess(server, 15_000);
      const exitedAfterMs = Math.round(now() - signalAt);
      let left = await poolConnections();
      for (let i = 0; i < 30 && left > 0; i++) {
        await sleep(100);
        left = await poolConnections();
      }

      const inFlight = load.answers.filter((a) => a.startedAt < signalAt - 100 && a.endedAt > signalAt);
      const later = load.answers.filter((a) => a.startedAt >= signalAt);
      const ended = {
        terminated: proxy.ended.terminated - endedBefore.terminated,
        dropped: proxy.ended.dropped - endedBefore.dropped,
      };
      console.warn(
        `shutdown (PostgreSQL): ${heldAnswers.length} held + ${inFlight.length} load requests in flight at SIGTERM: ${JSON.stringify(tally([...heldAnswers, ...inFlight]))}; slowest ${latency([...heldAnswers, ...inFlight]).max} ms; new connections refused ${refusedAfterMs} ms after the signal; requests sent after it: ${JSON.stringify(tally(later))}; exit ${JSON.stringify(exit)} after ${exitedAfterMs} ms; pool connections ended ${JSON.stringify(ended)}, left in pg_stat_activity: ${left}`,
      );

      expect(exit).toEqual({ code: 0, signal: null });
      expect(refusedAfterMs, 'new connections still accepted 1 s after SIGTERM').toBeDefined();
      expect(heldAnswers.map((a) => `${a.method} ${a.status}`)).toEqual([
        ...Array.from({ length: 8 }, () => 'GET 200'),
        ...Array.from({ length: 4 }, () => 'POST 201'),
      ]);
      expect(inFlight.length).toBeGreaterThan(0);
      expect(inFlight.filter((a) => !ok(a))).toEqual([]);
      // After the signal: served on a connection still open, or refused; never an error answer.
      expect(later.filter((a) => a.status !== 0 && !ok(a))).toEqual([]);
      // The pool was ended, not dropped by the exit: every connection said Terminate.
      expect(ended.dropped).toBe(0);
      expect(ended.terminated).toBeGreaterThan(0);
      expect(left).toBe(0);
      const ids = heldAnswers
        .filter((a) => a.method === 'POST')
        .map((a) => dataOf<{ tenantMembershipId: string }>(a).tenantMembershipId);
      const rows = await database.sql`select id from tenant_memberships where id = any(${ids}::uuid[])`;
      expect(rows).toHaveLength(4);
    } finally {
      if (server && server.child.exitCode === null) await stopServerProcess(server, 1000);
      await proxy.close();
    }
  });
});

describe('acknowledged writes on the embedded database survive SIGKILL', () => {
  async function allMemberships(call: Caller, tenantId: string): Promise<Set<string>> {
    const ids = new Set<string>();
    let cursor: string | null = null;
    do {
      const page = await call(
        'GET',
        `/tenants/${tenantId}/memberships?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      if (page.status !== 200) throw new Error(`listing answered ${page.status}`);
      for (const m of dataOf<{ tenantMembershipId: string }[]>(page)) ids.add(m.tenantMembershipId);
      cursor = (page.body as { meta: { nextCursor: string | null } }).meta.nextCursor;
    } while (cursor);
    return ids;
  }

  it('keeps every 201 across SIGKILLs (after a quiet moment, and in the middle of a burst), then SIGTERM', async () => {
    const env = {
      PGLITE_DATA_DIR: join(workdir, 'pglite'),
      AUTH_JWT_SECRET: SECRET,
      SUPER_ADMIN_SUBJECTS: ADMIN,
    };
    const token = await signDevToken(SECRET, { sub: ADMIN, ttl: '10m' });
    const acknowledged = new Set<string>();
    const rounds: string[] = [];
    let server = await startServerProcess(env, workdir);
    let call = callerFor(server.baseUrl, token);
    const tenantId = await seedTenant(call);
    const create = async (role: string) => {
      const res = await call('POST', `/tenants/${tenantId}/memberships`, {
        role,
        email: `${randomUUID().slice(0, 12)}@x.test`,
      });
      if (res.status === 201)
        acknowledged.add(dataOf<{ tenantMembershipId: string }>(res).tenantMembershipId);
      return res;
    };
    try {
      // Round 1: 40 writes one after another, each acknowledged, then SIGKILL at once.
      for (let i = 0; i < 40; i++) expect((await create('STUDENT')).status).toBe(201);
      server.child.kill('SIGKILL');
      expect(await server.exit).toEqual({ code: null, signal: 'SIGKILL' });
      rounds.push(`SIGKILL after ${acknowledged.size} sequential writes`);

      // Round 2: restart on the same directory (the dead process's lock is taken over), check,
      // then 4 writers at once and SIGKILL in the middle of the burst.
      for (const stop of ['SIGKILL', 'SIGTERM'] as const) {
        server = await startServerProcess(env, workdir);
        call = callerFor(server.baseUrl, token);
        const present = await allMemberships(call, tenantId);
        expect(
          [...acknowledged].filter((id) => !present.has(id)),
          `lost after ${rounds.at(-1)}`,
        ).toEqual([]);
        let writing = true;
        const writers = Array.from({ length: 4 }, async () => {
          while (writing) await create('TEACHER');
        });
        const before = acknowledged.size;
        await sleep(1500);
        server.child.kill(stop);
        writing = false;
        await Promise.all(writers);
        expect(await server.exit).toEqual(
          stop === 'SIGKILL' ? { code: null, signal: 'SIGKILL' } : { code: 0, signal: null },
        );
        rounds.push(`${stop} during a burst of ${acknowledged.size - before} acknowledged writes`);
      }

      server = await startServerProcess(env, workdir);
      call = callerFor(server.baseUrl, token);
      const present = await allMemberships(call, tenantId);
      expect(
        [...acknowledged].filter((id) => !present.has(id)),
        `lost after ${rounds.at(-1)}`,
      ).toEqual([]);
      console.warn(
        `shutdown (PGlite): ${rounds.join('; ')}; ${acknowledged.size} acknowledged writes, all present (${present.size} memberships in the tenant)`,
      );
    } finally {
      await stopServerProcess(server);
    }
  }, 120_000);
});
