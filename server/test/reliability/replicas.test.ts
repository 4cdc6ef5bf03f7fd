import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../support/factories.js';
import { type HaProxy, startHaProxy } from './haproxy.js';
import { now } from './membership-load.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';
import type { Phase } from './replica-analysis.js';
import { sampleCpu } from './replica-cpu.js';
import { createTenants, describeFailures, missingCreates, ok, ReplicaLoad } from './replica-load.js';
import { phaseOf, table, writeReport } from './replica-report.js';
import { type Spawned, startServerProcess, stopServerProcess } from './server-process.js';

// Three server processes on one PostgreSQL behind a real load balancer, as a deployment runs them:
// a rolling restart must cost no request, a crash only the requests the dead process held, and
// no acknowledged write may be lost on the way.
const SECRET = 'replicas-reliability-secret-of-32-bytes';
const ADMIN = unique('replicas-admin');
const CLIENTS = 8;
const PHASE_SECONDS = 5;
// Three times what HAProxy needs to see two failed checks 250 ms apart.
const DRAIN_MS = 1500;

let database: RelDatabase;
let haproxy: HaProxy;
let workdir: string;
let env: Record<string, string>;
let token = '';
let tenants: string[] = [];
/** The process in each HAProxy slot: slots[0] is s1. */
const slots: Spawned[] = [];
/** Every create answered 201 in this file (id -> email). */
const acknowledged = new Map<string, string>();

const slotName = (slot: number) => `s${slot + 1}`;
const portOf = (server: Spawned) => Number(new URL(server.baseUrl).port);
const pids = () => slots.map((s) => s.child.pid ?? -1);
async function runLoad(pauseMs: number, during: (load: ReplicaLoad) => Promise<void>) {
  const load = new ReplicaLoad(haproxy.url, token, tenants, CLIENTS, pauseMs).start();
  try {
    await load.answered(50);
    await during(load);
  } finally {
    await load.stop();
    for (const [id, email] of load.created) acknowledged.set(id, email);
  }
  return load;
}

/** SIGTERM or SIGKILL the process in `slot`, start its replacement, and wait until HAProxy sends to it. */
async function replace(slot: number, signal: 'SIGTERM' | 'SIGKILL') {
  const old = slots[slot];
  if (!old) throw new Error(`no process in ${slotName(slot)}`);
  const sentAt = now();
  old.child.kill(signal);
  const gone = old.exit.then(() => now());
  const downAt = await haproxy.waitFor(slotName(slot), 'DOWN');
  const exit = await stopServerProcess(old);
  const exitedAt = await gone;
  const next = await startServerProcess(env, workdir);
  slots[slot] = next;
  const listeningAt = now();
  await haproxy.moveServer(slotName(slot), portOf(next));
  const upAt = await haproxy.waitFor(slotName(slot), 'UP');
  return {
    sentAt,
    downMs: downAt - sentAt,
    exitMs: exitedAt - sentAt,
    startMs: listeningAt - exitedAt,
    upMs: upAt - listeningAt,
    exit,
  };
}

beforeAll(async () => {
  if (!postgresUrl()) return;
  database = await createRelDatabase();
  workdir = mkdtempSync(join(tmpdir(), 'tms-replicas-'));
  env = {
    DATABASE_URL: database.url,
    AUTH_JWT_SECRET: SECRET,
    SUPER_ADMIN_SUBJECTS: ADMIN,
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
  };
  // Started at once: they race on the migrations, which an advisory lock serialises.
  slots.push(...(await Promise.all([1, 2, 3].map(() => startServerProcess(env, workdir)))));
  haproxy = await startHaProxy(slots.map(portOf));
  for (const slot of [0, 1, 2]) await haproxy.waitFor(slotName(slot), 'UP');
  token = await signDevToken(SECRET, { sub: ADMIN, ttl: '30m' });
  tenants = await createTenants(haproxy.url, token, CLIENTS);
}, 90_000);

afterAll(async () => {
  const exits = await Promise.all(slots.map((server) => stopServerProcess(server)));
  await haproxy?.stop();
  await database?.drop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
  expect(exits).toEqual(slots.map(() => ({ code: 0, signal: null })));
}, 60_000);

describe.skipIf(!postgresUrl())('three server processes behind HAProxy, on PostgreSQL', () => {
  it('serves through 1, 2 and 3 processes: req/s and the CPU per request of each part', async () => {
    const phases: Phase[] = [];
    for (const processes of [1, 2, 3]) {
      for (const slot of [0, 1, 2]) {
        await haproxy.command(
          `set server be/${slotName(slot)} state ${slot < processes ? 'ready' : 'maint'}`,
        );
      }
      for (let slot = 0; slot < processes; slot++) await haproxy.waitFor(slotName(slot), 'UP');
      const parts = () => sampleCpu({ haproxy: haproxy.pid, node: pids(), database: database.name });
      let phase: Phase | undefined;
      const load = await runLoad(0, async (running) => {
        // Warm-up: connections opened, code paths compiled, pools filled.
        await running.answered(500);
        const before = parts();
        await new Promise((resolve) => setTimeout(resolve, PHASE_SECONDS * 1000));
        phase = phaseOf(processes, CLIENTS, running.outcomes, before, parts());
      });
      const failed = load.outcomes.filter((o) => !ok(o));
      expect(describeFailures(failed), `failures with ${processes} processes`).toEqual([]);
      if (phase) phases.push(phase);
    }
    for (const slot of [0, 1, 2]) await haproxy.command(`set server be/${slotName(slot)} state ready`);
    for (const slot of [0, 1, 2]) await haproxy.waitFor(slotName(slot), 'UP');
    console.warn(`\nthree replicas behind HAProxy, throughput:\n${table(phases)}\n`);
    console.warn(writeReport(phases, { seconds: PHASE_SECONDS, clients: CLIENTS, haproxy: haproxy.version }));
    expect(phases.map((p) => p.processes)).toEqual([1, 2, 3]);
    for (const p of phases) expect(p.requests, `requests with ${p.processes} processes`).toBeGreaterThan(0);
  }, 90_000);

  it('restarts the three one after another under load without a single failed request', async () => {
    const restarts: Awaited<ReturnType<typeof replace>>[] = [];
    const retriedBefore = await haproxy.rerouted();
    const load = await runLoad(2, async (running) => {
      for (const slot of [0, 1, 2]) {
        restarts.push(await replace(slot, 'SIGTERM'));
        // The new process serves before the next one goes.
        await running.answered(100);
      }
    });
    const retried = (await haproxy.rerouted()) - retriedBefore;
    const failed = load.outcomes.filter((o) => !ok(o));
    console.warn(
      `\nrolling restart through HAProxy: ${load.outcomes.length} requests, ${failed.length} failed, ` +
        `${retried} connections retried or redispatched by HAProxy\n` +
        restarts
          .map(
            (r, k) =>
              `  ${slotName(k)}: DOWN ${Math.round(r.downMs)} ms after SIGTERM, exited after ` +
              `${Math.round(r.exitMs)} ms (${JSON.stringify(r.exit)}); the replacement listened ` +
              `${Math.round(r.startMs)} ms later and was UP ${Math.round(r.upMs)} ms after that`,
          )
          .join('\n'),
    );
    expect(describeFailures(failed), haproxy.log().slice(-3000)).toEqual([]);
    for (const r of restarts) {
      expect(r.exit).toEqual({ code: 0, signal: null });
      // Out of the rotation before the drain ended, that is before the process stopped accepting.
      expect(r.downMs).toBeLessThan(DRAIN_MS);
    }
  }, 90_000);

  it('loses only the requests in flight on a SIGKILLed process, and no acknowledged write', async () => {
    const { check } = haproxy;
    let killed = { sentAt: 0, downMs: 0, exitMs: 0 };
    const retriedBefore = await haproxy.rerouted();
    const load = await runLoad(2, async (running) => {
      killed = await replace(1, 'SIGKILL');
      await running.answered(100);
    });
    const retried = (await haproxy.rerouted()) - retriedBefore;
    const failed = load.outcomes.filter((o) => !ok(o));
    // HAProxy closes the client's connection, without an answer, when a request that was not the
    // connection's first gets none from the server: that client sees a reset, others a 502.
    console.warn(
      `\nSIGKILL under load: ${load.outcomes.length} requests, ${failed.length} failed (of ${CLIENTS} clients), ` +
        `${retried} refused connections sent elsewhere by HAProxy; it saw the process DOWN ` +
        `${Math.round(killed.downMs)} ms after the kill (checks every ${check.interMs} ms, fall ${check.fall}); ` +
        `the process was gone ${Math.round(killed.exitMs)} ms after it\n` +
        failed
          .map(
            (o) =>
              `  ${describeFailures([o])[0]}, sent ${Math.round(o.startedAt - killed.sentAt)} ms after the kill`,
          )
          .join('\n'),
    );
    // Each client has one request in flight; a killed process's sockets are not closed at once,
    // though: while the kernel tears it down (40-160 ms here, on a busy machine) one connection
    // may be reset while the listening socket still accepts, so the client whose request was lost
    // can be routed there once more. Hence a bound of 2 per client, not 1: 9 failures for 8
    // clients were seen in 3 of 28 runs, never more.
    expect(failed.length).toBeLessThanOrEqual(2 * CLIENTS);
    expect(failed.filter((o) => o.status !== 0 && o.status !== 502)).toEqual([]);
    // Every request lost was handed to that process before it was gone and before HAProxy took it out.
    for (const o of failed) {
      expect(o.startedAt).toBeLessThan(killed.sentAt + killed.exitMs);
      expect(o.startedAt).toBeLessThan(killed.sentAt + killed.downMs);
    }
    expect(killed.downMs).toBeLessThan(check.interMs * check.fall + 1000);

    const lost = await missingCreates(database.sql, acknowledged);
    console.warn(
      `acknowledged creates in this file: ${acknowledged.size}, missing from the database: ${lost.length}`,
    );
    expect(lost).toEqual([]);
    expect(acknowledged.size).toBeGreaterThan(0);
  }, 90_000);
});
