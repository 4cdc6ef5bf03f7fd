import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { markdownTable, summarise } from './overload/analysis.js';
import { treeCpuSeconds } from './overload/process-cpu.js';
import { runOverload } from './overload/scenario.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';
import { type Spawned, startServerProcess, stopServerProcess } from './server-process.js';

// Issue 25: one school's burst must not take every school down. Five schools on PostgreSQL with
// the default settings (pool of 10, 4 s deadline, default rate limits); four read and change
// their members at their usual pace, the fifth's admins arrive at three times the rate its
// writes can be served (an open loop: people do not wait for each other's answers). The figures
// are ratios of the capacity the run measures, never absolute times: the burst's rate from the
// capacity measured before it, the goodput against that and the one measured after it, averaged.
const SECRET = 'overload-reliability-secret-of-32-bytes!';
const SUPER = unique('overload-super');

let workdir: string;
beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-overload-'));
});
afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

describe.skipIf(!postgresUrl())('one tenant bursts at 3× the rate its writes can be served', () => {
  it.each([1, 2])(
    'WEB_CONCURRENCY=%i: the others are served, the excess is refused fast, and nothing stays broken',
    async (processes) => {
      const database: RelDatabase = await createRelDatabase();
      let server: Spawned | undefined;
      try {
        server = await startServerProcess(
          {
            DATABASE_URL: database.url,
            AUTH_JWT_SECRET: SECRET,
            SUPER_ADMIN_SUBJECTS: SUPER,
            WEB_CONCURRENCY: String(processes),
            // The defaults, as a deployment has them (the helper turns the limit off otherwise).
            RATE_LIMIT_MAX: '600',
          },
          workdir,
        );
        const run = await runOverload({
          baseUrl: server.baseUrl,
          secret: SECRET,
          superAdmin: SUPER,
          sql: database.sql,
          database: database.name,
          afterMs: 10_000,
          serviceCpu: () => treeCpuSeconds(server?.child.pid ?? 0),
        });
        const s = summarise(run);
        console.warn(markdownTable(`WEB_CONCURRENCY=${processes}`, s));

        // Isolation: the other schools are served while it lasts.
        expect(
          s.otherReads.burst.okShare,
          JSON.stringify(s.otherReads.burst.failures),
        ).toBeGreaterThanOrEqual(0.999);
        expect(
          s.otherWrites.burst.okShare,
          JSON.stringify(s.otherWrites.burst.failures),
        ).toBeGreaterThanOrEqual(0.99);
        expect(s.otherReads.burst.p99, 'p99 of the other schools’ reads').toBeLessThan(1000);
        expect(s.otherWrites.burst.p99, 'p99 of the other schools’ writes').toBeLessThan(1000);
        // Goodput: the busy school keeps most of its capacity; what it is refused is refused fast,
        // 429 or 503 in the envelope with a Retry-After, and nothing else goes wrong for anyone.
        expect(
          s.goodput,
          'successful writes ÷ capacity under load, before and after the burst',
        ).toBeGreaterThanOrEqual(0.6);
        expect(s.refusals.count, 'the burst was above capacity').toBeGreaterThan(0);
        expect(s.refusals.proper).toBe(s.refusals.count);
        expect(s.refusals.p50, 'median refusal').toBeLessThan(250);
        expect(s.refusals.max, 'slowest refusal, against the 4 s deadline').toBeLessThan(2000);
        expect(s.improper).toEqual({});
        // Recovery: under the usual load every request of every school succeeds again at once.
        expect(s.recoveryMs, 'from the end of the burst to the last failure').not.toBeNull();
        expect(s.recoveryMs).toBeLessThanOrEqual(5000);
        expect(s.otherReads.after.okShare).toBe(1);
        // The busy school too, once the burst's own queue has drained (before that, a write may
        // still meet it and be refused fast, 429 with Retry-After: improper is checked above).
        expect(s.busyWritesOnceDrained.okShare, JSON.stringify(s.busyWrites.after.failures)).toBe(1);
        expect(s.busyWritesOnceDrained.count).toBeGreaterThan(0);
        // No churn: the pool is not replaced; at most a few sessions (a worker's pool filling up).
        expect(s.sessionsOpenedDuringBurst, 'database sessions opened during the burst').toBeLessThanOrEqual(
          3 * processes,
        );
        expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
      } finally {
        if (server) {
          const exit = await stopServerProcess(server);
          expect(exit, server.output().slice(-2000)).toEqual({ code: 0, signal: null });
        }
        await database.drop();
      }
    },
    240_000,
  );
});
