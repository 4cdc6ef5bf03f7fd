/**
 * npm run bench: seeds a fresh database, starts the built service and the bare reference handler,
 * drives both with autocannon from another process, and writes bench/results/latest.{json,md,svg}.
 * Settings (environment): see bench/README.md.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { type BenchDatabase, createBenchDatabase } from './database.js';
import type { LoadResult } from './load.js';
import {
  cpuSeconds,
  postgresCpuSeconds,
  ROOT,
  runLoad,
  type Server,
  sampleRss,
  startServer,
} from './processes.js';
import { summarise } from './profile.js';
import {
  markdown,
  memoryOf,
  type Report,
  type ScenarioResult,
  type SideResult,
  svg,
  targetsOf,
} from './report.js';
import { encodeCursor, type Fixture, SCENARIOS, type ScenarioName, TITLES } from './scenarios.js';
import { removePoolMemberships, seed } from './seed.js';

const env = process.env;
const num = (name: string, fallback: number) => {
  const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0`);
  return value;
};
const config = {
  adminUrl: env.BENCH_DATABASE_URL || env.DATABASE_URL || undefined,
  duration: num('BENCH_DURATION', 10),
  warmup: num('BENCH_WARMUP', 3),
  /** Alternating slices per side and scenario (BENCH_DURATION is split among them). */
  rounds: Math.max(1, Math.round(num('BENCH_ROUNDS', 4))),
  connections: num('BENCH_CONNECTIONS', 10),
  memberships: num('BENCH_MEMBERSHIPS', 1_000_000),
  tenants: num('BENCH_TENANTS', 1000),
  pool: num('BENCH_POOL', 100_000),
  memoryDuration: num('BENCH_MEMORY_DURATION', 60),
  memoryScenario: (env.BENCH_MEMORY_SCENARIO ?? 'get-one') as ScenarioName,
  scenarios: (env.BENCH_SCENARIOS?.split(',').map((s) => s.trim()) ?? [...SCENARIOS]) as ScenarioName[],
  bare: env.BENCH_BARE !== '0',
  barePrepare: env.BENCH_BARE_PREPARE !== '0',
  profile: env.BENCH_PROFILE === '1',
  logLevel: env.BENCH_LOG_LEVEL ?? 'warn',
  /** Another build of the service to drive (e.g. a branch's server/dist/main.js). */
  serviceMain: env.BENCH_SERVICE_MAIN ?? 'server/dist/main.js',
  /**
   * Another build of the service to drive in place of the bare handler, in the same interleaved
   * slices: an A/B of two builds in one run (PostgreSQL only; the targets are then not judged).
   */
  baselineMain: env.BENCH_BASELINE_MAIN || undefined,
};
for (const name of [...config.scenarios, config.memoryScenario]) {
  if (!SCENARIOS.includes(name)) throw new Error(`unknown scenario ${name}; known: ${SCENARIOS.join(', ')}`);
}

const RESULTS = join(ROOT, 'bench/results');
const PROFILES = join(RESULTS, 'profiles');
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
    { memberships: config.memberships, tenants: config.tenants, pool: config.pool },
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
  };
  writeFileSync(fixtureFile, JSON.stringify(fixture));
  // PGlite belongs to one process: the harness lets go before the servers open it.
  if (db.kind === 'pglite') await sql.close();
  else cleanups.push(() => sql.close());
  return { sql: db.kind === 'postgres' ? sql : undefined, describe, seeded, seedSeconds };
}

const us = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(0)} µs`);
let postgresCpu: () => number | null = () => null;

/** One slice of load on one server, with the CPU time each process spent on it. */
type Slice = LoadResult & {
  cpuSeconds: { server: number; postgres: number | null; load: number };
  rss: { t: number; mb: number }[];
};

async function warmUp(server: Server, scenario: ScenarioName, pool: { offset: number }, fixtureFile: string) {
  if (config.warmup <= 0) return;
  const job = { url: server.url, scenario, connections: config.connections, fixtureFile };
  const warm = await runLoad({ ...job, duration: config.warmup, poolOffset: pool.offset });
  pool.offset += warm.usedPool + config.connections;
}

async function slice(
  server: Server,
  scenario: ScenarioName,
  seconds: number,
  pool: { offset: number },
  fixtureFile: string,
): Promise<Slice> {
  const job = { url: server.url, scenario, connections: config.connections, fixtureFile };
  const rss = sampleRss(server.pid, 1000);
  const cpu = { server: cpuSeconds(server.pid), postgres: postgresCpu() };
  const result: LoadResult = await runLoad({ ...job, duration: seconds, poolOffset: pool.offset });
  const pg = postgresCpu();
  pool.offset += result.usedPool + config.connections;
  return {
    ...result,
    rss: rss.stop(),
    cpuSeconds: {
      server: cpuSeconds(server.pid) - cpu.server,
      postgres: pg === null || cpu.postgres === null ? null : pg - cpu.postgres,
      load: result.loadCpuMs / 1000,
    },
  };
}

/**
 * One side's slices as one result: counts and CPU time add up; the percentiles are the slices'
 * own, averaged with their request counts as weights (autocannon gives no histogram to merge).
 */
function combine(server: Server, scenario: ScenarioName, slices: Slice[]): SideResult {
  const sum = (pick: (s: Slice) => number) => slices.reduce((total, s) => total + pick(s), 0);
  const requests = sum((s) => s.requests);
  const seconds = sum((s) => s.seconds);
  const weighted = (pick: (s: Slice) => number) => sum((s) => pick(s) * s.requests) / requests;
  const perRequest = (cpuSeconds: number) => (cpuSeconds * 1e6) / requests;
  const postgres = slices.every((s) => s.cpuSeconds.postgres !== null)
    ? perRequest(sum((s) => s.cpuSeconds.postgres ?? 0))
    : null;
  const rss = slices.flatMap((s) => s.rss);
  const side: SideResult = {
    requests,
    seconds,
    rps: requests / seconds,
    p50: weighted((s) => s.p50),
    p90: weighted((s) => s.p90),
    p99: weighted((s) => s.p99),
    mean: weighted((s) => s.mean),
    max: Math.max(...slices.map((s) => s.max)),
    non2xx: sum((s) => s.non2xx),
    errors: sum((s) => s.errors),
    timeouts: sum((s) => s.timeouts),
    usedPool: sum((s) => s.usedPool),
    loadCpuMs: sum((s) => s.loadCpuMs),
    rssStartMb: slices[0]?.rss[0]?.mb ?? Number.NaN,
    rssEndMb: slices.at(-1)?.rss.at(-1)?.mb ?? Number.NaN,
    rssMaxMb: Math.max(...rss.map((sample) => sample.mb)),
    cpuUsPerRequest: {
      server: perRequest(sum((s) => s.cpuSeconds.server)),
      postgres,
      load: perRequest(sum((s) => s.cpuSeconds.load)),
    },
  };
  say(
    `  ${server.name.padEnd(7)} ${TITLES[scenario].padEnd(32)} ${side.rps.toFixed(0).padStart(6)} req/s  ` +
      `p50 ${side.p50.toFixed(1)} ms  p99 ${side.p99.toFixed(1)} ms  non-2xx ${side.non2xx}  errors ${side.errors}  RSS ${side.rssEndMb.toFixed(0)} MB  ` +
      `CPU/request: server ${us(side.cpuUsPerRequest.server)}, postgres ${us(side.cpuUsPerRequest.postgres)}, autocannon ${us(side.cpuUsPerRequest.load)}`,
  );
  return side;
}

/**
 * Drives both servers in alternating slices, in the order service, bare, bare, service, ...: a
 * machine whose speed drifts during the run (other tenants of the host, CPU boost running out)
 * then slows both sides alike, and the ratio stays the ratio of the two builds.
 */
async function measure(
  servers: { service: Server; bare?: Server },
  scenario: ScenarioName,
  pools: { service: { offset: number }; bare: { offset: number } },
  fixtureFile: string,
): Promise<{ service: SideResult; bare?: SideResult }> {
  const { service, bare } = servers;
  await warmUp(service, scenario, pools.service, fixtureFile);
  if (bare) await warmUp(bare, scenario, pools.bare, fixtureFile);
  const seconds = config.duration / config.rounds;
  const slices: { service: Slice[]; bare: Slice[] } = { service: [], bare: [] };
  for (let round = 0; round < config.rounds; round++) {
    const order = bare
      ? round % 2 === 0
        ? (['service', 'bare'] as const)
        : (['bare', 'service'] as const)
      : (['service'] as const);
    for (const side of order) {
      const server = side === 'service' ? service : (bare as Server);
      slices[side].push(await slice(server, scenario, seconds, pools[side], fixtureFile));
    }
  }
  return {
    service: combine(service, scenario, slices.service),
    bare: bare && combine(bare, scenario, slices.bare),
  };
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'tms-bench-'));
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  mkdirSync(PROFILES, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  const fixtureFile = join(tmp, 'fixture.json');

  const db = await createBenchDatabase(config.adminUrl, tmp);
  cleanups.push(() => db.drop());
  const dbName = db.name;
  if (dbName) postgresCpu = () => postgresCpuSeconds(dbName);
  const { sql, describe, seeded, seedSeconds } = await prepare(db, secret, fixtureFile);
  say(`seeded in ${seedSeconds.toFixed(1)} s: ${JSON.stringify(seeded.rows)}`);

  // One directory per server: under tsx, the module-loader thread writes a profile of its own.
  const profileArgs = (name: string) => {
    if (!config.profile) return [];
    rmSync(join(PROFILES, name), { recursive: true, force: true });
    return ['--cpu-prof', `--cpu-prof-dir=${join(PROFILES, name)}`];
  };
  // Production settings; the rate limiter stays on (its cost is part of the path) but never refuses.
  const serviceEnv = {
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: config.logLevel,
    RATE_LIMIT_MAX: '1000000000',
  };
  const service = await startServer('service', [...profileArgs('service'), config.serviceMain], {
    ...serviceEnv,
    AUTH_JWT_SECRET: secret,
    ...db.serviceEnv,
  });
  cleanups.push(() => service.stop());
  if (config.baselineMain && db.kind !== 'postgres')
    throw new Error('BENCH_BASELINE_MAIN needs PostgreSQL: two services cannot share one PGlite directory');
  const bare = !config.bare
    ? undefined
    : config.baselineMain
      ? await startServer('baseline', [...profileArgs('baseline'), config.baselineMain], {
          ...serviceEnv,
          AUTH_JWT_SECRET: secret,
          ...db.serviceEnv,
        })
      : await startServer('bare', [...profileArgs('bare'), '--import', 'tsx', 'bench/bare-server.ts'], {
          PORT: '0',
          AUTH_JWT_SECRET: secret,
          BARE_POOL_SIZE: '10',
          BARE_PREPARE: config.barePrepare ? '1' : '0',
          ...db.bareEnv(),
        });
  if (bare) cleanups.push(() => bare.stop());
  say(`service ${service.url} (pid ${service.pid}), bare ${bare?.url ?? 'off'}`);

  const pools = { service: { offset: 0 }, bare: { offset: Math.floor(config.pool / 2) } };
  const scenarios: ScenarioResult[] = [];
  for (const name of config.scenarios) {
    const { service: s, bare: b } = await measure({ service, bare }, name, pools, fixtureFile);
    const ratio = b && { rps: s.rps / b.rps, p50: s.p50 / b.p50, p99: s.p99 / b.p99 };
    scenarios.push({ name, title: TITLES[name], service: s, bare: b, ratio });
    if (name === 'post-delete' && sql) {
      const left = await removePoolMemberships(sql, seeded.tenantId);
      if (left > 0)
        say(`  removed ${left} memberships left between a POST and its DELETE at the end of a run`);
      pools.service.offset = 0;
      pools.bare.offset = Math.floor(config.pool / 2);
    }
  }

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
  if (db.kind === 'pglite')
    notes.push(
      'PGlite: the bare handler runs on a copy of the seeded data directory, opened in its own process ' +
        'with the same PGlite as the service, so both sides have one embedded database each. The targets are ' +
        'PostgreSQL targets and are not judged here.',
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
      rounds: config.rounds,
      connections: config.connections,
      bare: !config.bare
        ? 'not run'
        : config.baselineMain
          ? `NOT the bare handler but another build of the service, ${config.baselineMain} (an A/B run; targets not judged)`
          : `node:http + jose + ${db.kind === 'pglite' ? 'PGlite' : `postgres.js (pool 10, ${config.barePrepare ? 'prepared statements' : 'unprepared, as drizzle sends them'})`}`,
      serviceEnv,
    },
    scenarios,
    deepVsFirst,
    memory,
    targets: targetsOf(scenarios, deepVsFirst, memory, db.kind === 'postgres' && !config.baselineMain),
    notes,
  };
  const base = env.BENCH_OUT ?? (config.profile ? join(PROFILES, 'run') : join(RESULTS, 'latest'));
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown(report));
  writeFileSync(`${base}.svg`, svg(report));
  process.stdout.write(`\n${markdown(report)}\nwritten: ${base}.{json,md,svg}\n`);
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

/** The largest profile of the directory: the main thread's. */
function mainThreadProfile(dir: string): string {
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  const largest = files.sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
  if (!largest) throw new Error(`no profile in ${dir}`);
  return join(dir, largest);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
