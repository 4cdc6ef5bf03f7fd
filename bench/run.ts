/**
 * npm run bench: seeds a fresh database, starts the built service and the bare reference handler,
 * drives both with autocannon from another process, and writes bench/results/latest.{json,md,svg}.
 * Settings (environment): see bench/README.md.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { config, sweptScenarios } from './config.js';
import { type BenchDatabase, createBenchDatabase, untilIdle } from './database.js';
import {
  measure,
  measurePostgresCpu,
  measureSweep,
  mergePasses,
  type Plan,
  type Pools,
  ratioOf,
  settleWith,
} from './measure.js';
import { postgresCpuSeconds, ROOT, runLoad, sampleRss } from './processes.js';
import { summarise } from './profile.js';
import { markdown, memoryOf, type Report, type ScenarioResult, targetsOf } from './report.js';
import { sizesSvg, svg } from './report-svg.js';
import { runRosterBench } from './rosters.js';
import { encodeCursor, type Fixture, isFilter, TITLES } from './scenarios.js';
import { removePoolMemberships, seed, vacuumAfterWrites } from './seed.js';
import { SEARCH } from './seed-tenants.js';
import { emptyProfiles, mainThreadProfile, PROFILES, startServers } from './servers.js';

const RESULTS = join(ROOT, 'bench/results');
const say = (line: string) => console.warn(line);

const cleanups: (() => Promise<unknown> | unknown)[] = [];
async function cleanUp() {
  for (const step of cleanups.splice(0).reverse()) {
    await Promise.resolve()
      .then(step)
      .catch((error: unknown) => console.error(`cleanup: ${(error as Error).message}`));
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`\n${signal}: stopping servers, dropping the bench database`);
    void cleanUp().then(() => process.exit(130));
  });
}

const token = (secret: string, sub: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('4h')
    .sign(new TextEncoder().encode(secret));

async function prepare(db: BenchDatabase, secret: string, fixtureFile: string) {
  const sql = await db.open();
  const describe = await db.describe(sql);
  say(`seeding ${describe}`);
  const started = performance.now();
  const seeded = await seed(
    sql,
    {
      memberships: config.memberships,
      tenants: config.tenants,
      pool: config.pool,
      sweep: sweptScenarios.length > 0 ? config.sweepSizes : [],
    },
    db.kind,
  );
  const seedSeconds = (performance.now() - started) / 1000;
  const fixture: Fixture = {
    tenantId: seeded.tenantId,
    ownerToken: await token(secret, seeded.ownerSubject),
    meToken: await token(secret, seeded.meSubject),
    getIds: seeded.getIds,
    deepCursor: encodeCursor(seeded.deepAfterId),
    poolUserIds: seeded.poolUserIds,
    q: SEARCH.q,
    memberships: config.memberships,
    sweep: await Promise.all(
      seeded.sweep.map(async (t) => ({
        size: t.size,
        tenantId: t.tenantId,
        ownerToken: await token(secret, t.ownerSubject),
      })),
    ),
  };
  writeFileSync(fixtureFile, JSON.stringify(fixture));
  await registerWebhookEndpoints(sql, config.webhookEndpoints);
  // PGlite belongs to one process: the harness lets go before the servers open it.
  if (db.kind === 'pglite') await sql.close();
  else cleanups.push(() => sql.close());
  return { sql: db.kind === 'postgres' ? sql : undefined, describe, seeded, seedSeconds };
}

/**
 * BENCH_WEBHOOK_ENDPOINTS=n: n platform endpoints for every event, so each change also writes n
 * outbox rows. Nothing delivers them (the service runs with WEBHOOK_POLL_INTERVAL_MS=0 then): the
 * bench measures what writing the outbox costs; `npm run bench:webhooks` measures delivery.
 */
async function registerWebhookEndpoints(sql: Awaited<ReturnType<BenchDatabase['open']>>, count: number) {
  for (let n = 0; n < count; n++) {
    await sql.query(
      `insert into webhook_endpoints (id, url, events, secret)
       values (gen_random_uuid(), 'http://127.0.0.1:9/never-delivered', '{*}', 'whsec_' || md5(random()::text))`,
    );
  }
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'tms-bench-'));
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  mkdirSync(PROFILES, { recursive: true });
  if (config.profile) emptyProfiles();
  const secret = randomBytes(48).toString('base64url');
  const fixtureFile = join(tmp, 'fixture.json');

  const db = await createBenchDatabase(config.adminUrl, tmp);
  cleanups.push(() => db.drop());
  const dbName = db.name;
  if (dbName) measurePostgresCpu(() => postgresCpuSeconds(dbName));
  const { sql, describe, seeded, seedSeconds } = await prepare(db, secret, fixtureFile);
  say(`seeded in ${seedSeconds.toFixed(1)} s: ${JSON.stringify(seeded.rows)}`);
  if (sql) settleWith(() => untilIdle(sql));

  // Production settings; the rate limiter stays on (its cost is part of the path) but never refuses.
  const serviceEnv = {
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: config.logLevel,
    RATE_LIMIT_MAX: '1000000000',
    ...(config.webhookEndpoints > 0 && { WEBHOOK_POLL_INTERVAL_MS: '0' }),
  };
  if (config.baselineMain && db.kind !== 'postgres')
    throw new Error('an A/B run needs PostgreSQL: two servers cannot share one PGlite directory');
  const start = () => startServers(db, secret, serviceEnv);
  let servers = await start();
  cleanups.push(() => servers.stop());

  const pools: Pools = { service: { offset: 0 }, bare: { offset: Math.floor(config.pool / 2) } };
  const common = { connections: config.connections, fixtureFile };
  const passes: ScenarioResult[][] = [];
  for (let pass = 1; pass <= config.passes; pass++) {
    if (pass > 1) {
      await servers.stop();
      servers = await start();
    }
    if (config.passes > 1) say(`pass ${pass} of ${config.passes}`);
    const results: ScenarioResult[] = [];
    for (const name of config.scenarios) {
      const rounds = isFilter(name) ? config.filterRounds : config.rounds;
      const plan: Plan = {
        ...common,
        scenario: name,
        duration: config.duration,
        rounds,
        warmup: config.warmup,
        byCount: isFilter(name),
      };
      const { service: s, bare: b } = await measure(servers, plan, pools);
      results.push({ name, title: TITLES[name], service: s, bare: b, ratio: ratioOf(s, b) });
      if (name === 'post-delete' && sql) {
        const left = await removePoolMemberships(sql, seeded.tenantId);
        if (left > 0)
          say(`  removed ${left} memberships left between a POST and its DELETE at the end of a run`);
        await vacuumAfterWrites(sql);
        pools.service.offset = 0;
        pools.bare.offset = Math.floor(config.pool / 2);
      }
    }
    passes.push(results);
  }
  const scenarios = mergePasses(passes);
  const { service, bare } = servers;

  const sweepPlan = {
    ...common,
    byCount: true,
    duration: config.sweepDuration,
    rounds: config.sweepRounds,
    warmup: config.sweepWarmup,
  };
  const sweep = await measureSweep(
    { service, bare },
    sweepPlan,
    config.sweepSizes,
    pools,
    scenarios,
    config.memberships,
  );

  let memory = null;
  if (config.memoryDuration > 0) {
    say(`memory: service, ${TITLES[config.memoryScenario]}, ${config.memoryDuration} s`);
    const rss = sampleRss(service.pid, 1000);
    const result = await runLoad({
      url: service.url,
      scenario: config.memoryScenario,
      duration: config.memoryDuration,
      connections: config.connections,
      fixtureFile,
      poolOffset: pools.service.offset,
    });
    memory = memoryOf(config.memoryScenario, config.memoryDuration, rss.stop());
    say(
      `  ${result.rps.toFixed(0)} req/s; RSS ${memory.startMb.toFixed(0)} -> ${memory.endMb.toFixed(0)} MB ` +
        `(${(memory.growth * 100).toFixed(1)} %), max ${memory.maxMb.toFixed(0)} MB`,
    );
  }

  // Roster imports and the export (bench/rosters.ts), on this service and its big tenant; BENCH_ROSTERS=0 skips them.
  const { tenantId: exportTenantId, ownerSubject } = seeded;
  await runRosterBench({
    db,
    service,
    secret,
    ownerSubject,
    exportTenantId,
    exportMemberships: config.memberships,
  });

  await cleanUp();

  const first = scenarios.find((s) => s.name === 'list-first')?.service;
  const deep = scenarios.find((s) => s.name === 'list-deep')?.service;
  const deepVsFirst = first && deep ? { cost: first.rps / deep.rps, p50: deep.p50 / first.p50 } : null;
  const notes = [
    "Latencies come from autocannon, in whole milliseconds per slice; a side's p50 and p99 are its slices' figures weighted by their request counts. POST then DELETE counts each request.",
    'The service runs with NODE_ENV=production, LOG_LEVEL=' +
      `${config.logLevel}, its rate limiter on with RATE_LIMIT_MAX=1e9 (counted, never refused)` +
      `${db.kind === 'postgres' ? ', a pool of 10 connections' : ''}.`,
  ];
  if (config.bare && !config.baselineMain)
    notes.push(
      'The floor writes what the service writes for POST and DELETE: the membership, its audit event and the ' +
        "webhook outbox's rows, BEGIN, lock, change and COMMIT sent together (one round trip on PostgreSQL).",
    );
  if (db.kind === 'pglite')
    notes.push(
      'PGlite: the bare handler runs on a copy of the seeded data directory, opened in its own process ' +
        'with the same PGlite as the service, so both sides have one embedded database each. The targets are ' +
        'PostgreSQL targets and are not judged here.',
    );
  if (config.webhookEndpoints > 0)
    notes.push(
      `${config.webhookEndpoints} platform webhook endpoint(s) for every event: each change writes its audit ` +
        'event and that many outbox rows (not delivered in this run: WEBHOOK_POLL_INTERVAL_MS=0).',
    );
  if (config.profile) notes.push('Profiled run (--cpu-prof): figures are lower than without the profiler.');
  const report: Report = {
    meta: {
      date: new Date().toISOString(),
      commit: commitOf(),
      database: describe,
      node: process.version,
      cpus: `${cpus().length} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
      seed: { ...seeded.rows, seedSeconds },
      duration: config.duration,
      warmup: config.warmup,
      passes: config.passes,
      rounds: config.rounds,
      filterRounds: config.filterRounds,
      sweep: { duration: config.sweepDuration, warmup: config.sweepWarmup, rounds: config.sweepRounds },
      connections: config.connections,
      bare: !config.bare
        ? 'not run'
        : config.baselineMain
          ? `NOT the bare handler but another build of the service, ${config.baselineMain} (an A/B run; targets not judged)`
          : `node:http + jose + ${db.kind === 'pglite' ? 'PGlite' : `postgres.js (pool 10, ${config.barePrepare ? 'prepared statements' : 'unprepared, as drizzle sends them'})`}`,
      serviceEnv: { ...serviceEnv, ...config.serviceEnv },
      ...(Object.keys(config.baselineEnv).length > 0 && { baselineEnv: config.baselineEnv }),
    },
    scenarios,
    sweep,
    deepVsFirst,
    memory,
    targets: targetsOf(scenarios, deepVsFirst, memory, db.kind === 'postgres' && !config.baselineMain),
    notes,
  };
  const base = config.out ?? (config.profile ? join(PROFILES, 'run') : join(RESULTS, 'latest'));
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown(report));
  writeFileSync(`${base}.svg`, svg(report));
  if (sweep.length > 0) writeFileSync(`${base}-sizes.svg`, sizesSvg(report));
  process.stdout.write(
    `\n${markdown(report)}\nwritten: ${base}.{json,md,svg}${sweep.length > 0 ? `, ${base}-sizes.svg` : ''}\n`,
  );
  if (config.profile) {
    for (const name of ['service', ...(config.bare ? [config.baselineMain ? 'baseline' : 'bare'] : [])]) {
      const summary = summarise(mainThreadProfile(join(PROFILES, name)));
      writeFileSync(join(PROFILES, `${name}-summary.md`), summary);
      process.stdout.write(`\n${name}:\n${summary}`);
    }
  }
}

/** The commit the service was built from, marked when server/ or contract/ had uncommitted changes. */
function commitOf(): string {
  const git = (args: string) => execSync(`git ${args}`, { cwd: ROOT }).toString().trim();
  return `${git('rev-parse --short HEAD')}${git('status --porcelain -- server/src contract/src server/drizzle') ? ' (with uncommitted changes)' : ''}`;
}

main().catch(async (error: unknown) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
