import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../support/factories.js';
import { until } from '../support/until.js';
import { latency, MembershipLoad, now, tally } from './membership-load.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';
import { type Spawned, startServerProcess, stopServerProcess } from './server-process.js';
import { type StuckSockets, TcpProxy } from './tcp-proxy.js';
import { type Answer, callerFor, dataOf, sleep, timedFetch } from './timed-fetch.js';

// The real server process reaches PostgreSQL through a proxy in this process, which cuts it.
const SECRET = 'database-outage-secret-of-at-least-32-bytes';
const ADMIN = unique('outage-admin');
const WORKERS = 6;
const BASELINE_ANSWERS = 20;
const BASELINE_LIMIT_MS = 30_000;
/** Long enough for every worker to send, and be answered, at least once wholly inside it. */
const OUTAGE_MS = 9000;
/** The spec: 503 "within a few seconds"; the deadline is REQUEST_TIMEOUT_MS = 4000. */
const MAX_LATENCY_MS = 5000;
/**
 * The service must serve again, steadily, within this time after the database returns. The worst
 * case is the blackhole: a connection opened during the outage may still wait on its dead flow
 * for up to 6 s (then replaced, with the idle ones not heard from since), admission refuses 503
 * for 5 s after a deadline, and then answers must stay good for 2 s.
 */
const RECOVERY_LIMIT_MS = 25_000;
const STEADY_MS = 2000;
/** Readiness probes after recovery before it counts as not ready (as an orchestrator's failureThreshold). */
const READY_TRIES = 3;

const ok = (a: Answer) => a.status >= 200 && a.status < 300;

let database: RelDatabase;
let workdir: string;
beforeAll(async () => {
  if (!postgresUrl()) return;
  database = await createRelDatabase();
  workdir = mkdtempSync(join(tmpdir(), 'tms-outage-'));
});
afterAll(async () => {
  await database?.drop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

type Cut = {
  name: string;
  cut(proxy: TcpProxy): Promise<void>;
  restore(proxy: TcpProxy): Promise<void>;
  /** The old connections never answer again: the service must end their sessions itself. */
  endsOldSessions?: boolean;
};

const down: Cut = { name: 'down', cut: (p) => p.down(), restore: (p) => p.restore() };
const silent = (stuck: StuckSockets): Cut => ({
  name: `silent, stuck sockets ${stuck}`,
  endsOldSessions: stuck === 'blackhole',
  cut: async (p) => p.silent(),
  restore: (p) => p.restore(stuck),
});

async function outage(scenario: Cut) {
  const proxy = await TcpProxy.toDatabase(database.url);
  let server: Spawned | undefined;
  try {
    server = await startServerProcess(
      { DATABASE_URL: database.urlVia(proxy.port), AUTH_JWT_SECRET: SECRET, SUPER_ADMIN_SUBJECTS: ADMIN },
      workdir,
    );
    const base = server.baseUrl;
    const call = callerFor(base, await signDevToken(SECRET, { sub: ADMIN, ttl: '10m' }));
    const slug = unique('outage');
    const tenant = await call('POST', '/admin/tenants', {
      name: slug,
      slug,
      owner: { email: `${slug}@x.test` },
    });
    expect(tenant.status).toBe(201);
    const load = new MembershipLoad(call, dataOf<{ tenantId: string }>(tenant).tenantId);

    load.start(WORKERS);
    // The baseline is a number of answers, not a time: on a busy machine 1.5 s may hold few.
    await until(
      'answers before the cut',
      () => load.answers.length > BASELINE_ANSWERS,
      BASELINE_LIMIT_MS,
      50,
    );
    const cutAt = now();
    const cutAtWall = new Date();
    await scenario.cut(proxy);
    await sleep(1500);
    const probes = {
      live: await timedFetch(base, 'GET', '/health/live'),
      ready: await timedFetch(base, 'GET', '/health/ready'),
    };
    await sleep(OUTAGE_MS - (now() - cutAt));
    const restoredAt = now();
    const diedDuringOutage = server.child.exitCode;
    await scenario.restore(proxy);

    // Recovered: STEADY_MS of answers, all 2xx, from every kind of request, after the last failure.
    let recoveredAt: number | undefined;
    while (now() - restoredAt < RECOVERY_LIMIT_MS + STEADY_MS) {
      await sleep(250);
      const after = load.sentBetween(restoredAt);
      const lastBad = after.filter((a) => !ok(a)).at(-1);
      const goodSince = lastBad ? lastBad.endedAt : restoredAt;
      const good = after.filter((a) => a.startedAt >= goodSince);
      if (now() - goodSince >= STEADY_MS && new Set(good.map((a) => a.method)).size === 3) {
        recoveredAt = goodSince;
        break;
      }
    }
    // Ready again, by itself. Polled: a single probe under load can pass its 1 s budget (on 2
    // shared cores it did, once in a few runs), which says nothing about recovery.
    let readyAfter = await timedFetch(base, 'GET', '/health/ready');
    for (let tries = 1; readyAfter.status !== 200 && tries < READY_TRIES; tries++) {
      await sleep(250);
      readyAfter = await timedFetch(base, 'GET', '/health/ready');
    }
    await load.stop();

    const before = load.answers.filter((a) => a.endedAt < cutAt);
    const during = load.sentBetween(cutAt).filter((a) => a.endedAt < restoredAt);
    const after = load.sentBetween(restoredAt);
    const firstOk = after.find(ok);
    const report = {
      scenario: scenario.name,
      requests: load.answers.length,
      before: tally(before),
      during: tally(during),
      after: tally(after),
      maxLatencyMs: latency(load.answers).max,
      outageLatency: latency(during),
      firstOkAfterRestoreMs: firstOk ? Math.round(firstOk.endedAt - restoredAt) : null,
      recoveryMs: recoveredAt === undefined ? null : Math.round(recoveredAt - restoredAt),
      acknowledgedWrites: load.acknowledged.size,
      proxyConnections: proxy.accepted,
      exitDuringOutage: diedDuringOutage,
    };
    console.warn(`database outage: ${JSON.stringify(report)}`);

    expect(diedDuringOutage, `the service process died:\n${server.output().slice(-1500)}`).toBeNull();
    expect(before.length, 'load before the cut').toBeGreaterThan(20);
    expect(
      before.filter((a) => !ok(a)),
      'before the cut',
    ).toEqual([]);
    // During: every request sent answers 503 SERVICE_UNAVAILABLE, and promptly.
    expect(during.length, 'requests answered during the outage').toBeGreaterThanOrEqual(WORKERS);
    expect(tally(during)).toEqual({ '503 SERVICE_UNAVAILABLE': during.length });
    expect(latency(during).max, 'slowest answer during the outage').toBeLessThan(MAX_LATENCY_MS);
    // No answer ever hung or failed otherwise, before, during or after.
    expect(latency(load.answers).max, 'slowest answer overall').toBeLessThan(MAX_LATENCY_MS);
    expect(load.answers.filter((a) => a.status !== 503 && !ok(a))).toEqual([]);
    expect(probes.live.status).toBe(200);
    expect(probes.ready.status).toBe(503);
    expect(probes.ready.ms).toBeLessThan(2000);
    // Recovered by itself, without a restart.
    const serverLog = server
      .output()
      .split('\n')
      .filter((line) => !line.includes('took too long'))
      .join('\n')
      .slice(-2000);
    // What holds the database, when it did not recover: the sessions and the locks they wait on.
    const sessions = recoveredAt === undefined ? JSON.stringify(await sessionsOf(database), null, 1) : '';
    expect(
      recoveredAt,
      `no steady recovery within ${RECOVERY_LIMIT_MS} ms:\n${serverLog}\nsessions: ${sessions}`,
    ).toBeDefined();
    expect(readyAfter.status, JSON.stringify(readyAfter)).toBe(200);
    if (scenario.endsOldSessions) {
      // The flows of the cut lead nowhere: the sessions on them (one may hold a tenant's lock,
      // cut in the middle of a statement, where no timeout applies) are ended by the service.
      const left = () => database.sql<{ pid: number }[]>`
        select pid from pg_stat_activity
        where datname = current_database() and application_name = 'tenant-membership-service'
          and backend_start < ${cutAtWall.toISOString()}::timestamptz`;
      await until(
        'the sessions of the cut ended',
        async () => (await left()).length === 0,
        10_000,
        100,
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(await sessionsOf(database), null, 1)}`);
      });
    }

    // Every acknowledged write is in the database (read directly, not through the proxy).
    const ids = [...load.acknowledged.keys()];
    const rows = await database.sql<{ id: string }[]>`
      select id from tenant_memberships where id = any(${ids}::uuid[])`;
    const present = new Set(rows.map((r) => r.id));
    const fate = (id: string) => load.acknowledged.get(id);
    expect(
      ids.filter((id) => fate(id) === 'kept' && !present.has(id)),
      'acknowledged creates missing',
    ).toEqual([]);
    expect(
      ids.filter((id) => fate(id) === 'deleted' && present.has(id)),
      'acknowledged deletes still there',
    ).toEqual([]);
    // Not vacuous: both kinds of acknowledged write happened (a DELETE that answered 503 is left out).
    expect(ids.filter((id) => fate(id) === 'kept').length).toBeGreaterThan(5);
    expect(ids.filter((id) => fate(id) === 'deleted').length).toBeGreaterThan(5);
    return report;
  } finally {
    if (server) {
      const exit = await stopServerProcess(server);
      expect(exit, server.output().slice(-2000)).toEqual({ code: 0, signal: null });
    }
    await proxy.close();
  }
}

function sessionsOf(database: RelDatabase) {
  return database.sql`
    select pid, application_name, state, wait_event_type, wait_event, backend_start, xact_start,
      state_change, left(query, 120) as query, pg_blocking_pids(pid) as blocked_by
    from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
}

describe.skipIf(!postgresUrl())('PostgreSQL goes away under load, and comes back', () => {
  it('down (connections reset, new ones refused): 503 within 5 s, live stays up, recovers', async () => {
    await outage(down);
  });

  it.each<StuckSockets>(['resume', 'destroy', 'blackhole'])(
    'silent (accepts, forwards nothing), then the stuck sockets %s: 503 within 5 s, recovers',
    async (stuck) => {
      await outage(silent(stuck));
    },
  );
});
