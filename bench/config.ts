import { FILTER_SCENARIOS, SCENARIOS, type ScenarioName } from './scenarios.js';

/** The bench's settings, from the environment (see bench/README.md). */
const env = process.env;
const num = (name: string, fallback: number) => {
  const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0`);
  return value;
};
const list = (name: string, fallback: string) =>
  (env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** `NAME=value,NAME=value`: variables added to one server's environment. */
const vars = (name: string) =>
  Object.fromEntries(
    list(name, '').map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`${name} must be NAME=value pairs separated by commas`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );

const memberships = num('BENCH_MEMBERSHIPS', 1_000_000);

export const config = {
  adminUrl: env.BENCH_DATABASE_URL || env.DATABASE_URL || undefined,
  duration: num('BENCH_DURATION', 10),
  warmup: num('BENCH_WARMUP', 3),
  /**
   * Passes over the scenarios, each with fresh server processes; a target is judged on the median
   * of the passes' ratios (one pass's ratio moved by up to 0.14 between runs of one build). One
   * on PGlite, whose targets are not judged.
   */
  passes: Math.max(1, Math.round(num('BENCH_PASSES', env.BENCH_DATABASE_URL || env.DATABASE_URL ? 3 : 1))),
  /** Alternating slices per side and scenario (BENCH_DURATION is split among them). */
  rounds: Math.max(1, Math.round(num('BENCH_ROUNDS', 4))),
  /**
   * Slices of the filtered pages: a search that takes seconds completes a handful of requests in a
   * slice, and the ones cut off at its end are lost, so fewer and longer slices.
   */
  filterRounds: Math.max(1, Math.round(num('BENCH_FILTER_ROUNDS', 2))),
  connections: num('BENCH_CONNECTIONS', 10),
  memberships,
  tenants: num('BENCH_TENANTS', 1000),
  pool: num('BENCH_POOL', 100_000),
  /**
   * Smaller tenants the filtered pages are measured at too, beside the big one; sizes not below
   * the big tenant are left out (its own figures are the sweep's last point).
   */
  sweepSizes: list('BENCH_SWEEP_SIZES', '1000,100000')
    .map(Number)
    .filter((size) => Number.isInteger(size) && size >= 1000 && size < memberships),
  sweepDuration: num('BENCH_SWEEP_DURATION', 4),
  sweepWarmup: num('BENCH_SWEEP_WARMUP', 1),
  sweepRounds: Math.max(1, Math.round(num('BENCH_SWEEP_ROUNDS', 2))),
  memoryDuration: num('BENCH_MEMORY_DURATION', 60),
  memoryScenario: (env.BENCH_MEMORY_SCENARIO ?? 'get-one') as ScenarioName,
  scenarios: list('BENCH_SCENARIOS', SCENARIOS.join(',')) as ScenarioName[],
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
  /**
   * Extra environment of the service, and of the baseline build: the same build with a setting on
   * and off (e.g. `BENCH_SERVICE_ENV=DATABASE_POOLER=transaction BENCH_BASELINE_MAIN=server/dist/main.js`).
   */
  serviceEnv: vars('BENCH_SERVICE_ENV'),
  baselineEnv: vars('BENCH_BASELINE_ENV'),
  out: env.BENCH_OUT,
  /** Platform webhook endpoints seeded (every change then writes that many outbox rows); see run.ts. */
  webhookEndpoints: num('BENCH_WEBHOOK_ENDPOINTS', 0),
};
for (const name of [...config.scenarios, config.memoryScenario]) {
  if (!SCENARIOS.includes(name)) throw new Error(`unknown scenario ${name}; known: ${SCENARIOS.join(', ')}`);
}

/** The filtered pages this run measures, hence sweeps. */
export const sweptScenarios = FILTER_SCENARIOS.filter((name) => config.scenarios.includes(name));
