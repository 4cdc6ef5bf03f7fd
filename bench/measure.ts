import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadResult } from './load.js';
import { cpuSeconds, runLoad, type Server, sampleRss } from './processes.js';
import { median, type Ratio, type ScenarioResult, type SideResult, type SweepPoint } from './report.js';
import { FILTER_SCENARIOS, isFilter, type ScenarioName, TITLES } from './scenarios.js';

/** What one scenario's measurement is: how long, in how many slices, at which tenant size. */
export type Plan = {
  scenario: ScenarioName;
  /** Seconds of load per side, split among the slices. */
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  fixtureFile: string;
  /** The filtered pages at the sweep's tenant of this size; the big tenant if absent. */
  size?: number;
  /**
   * Slices of a number of requests rather than of seconds (the number that the last rate says
   * fills the slice, in whole rounds of the connections): a search that takes seconds completes a
   * handful of requests in a slice, and which of them a deadline cuts off would decide the figure.
   */
  byCount?: boolean;
};

export type Pools = { service: { offset: number }; bare: { offset: number } };

/** CPU seconds of the bench database's PostgreSQL backends so far; null when not measurable. */
let postgresCpu: () => number | null = () => null;
export const measurePostgresCpu = (read: () => number) => {
  postgresCpu = read;
};

const say = (line: string) => console.warn(line);
const us = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(0)} µs`);

/** One slice of load on one server, with the CPU time each process spent on it. */
type Slice = LoadResult & {
  cpuSeconds: { server: number; postgres: number | null; load: number };
  rss: { t: number; mb: number }[];
};

const jobOf = (server: Server, plan: Plan) => ({
  url: server.url,
  scenario: plan.scenario,
  connections: plan.connections,
  fixtureFile: plan.fixtureFile,
  size: plan.size,
});

/**
 * Waits for the work a slice left behind: the requests still running when autocannon stops by the
 * clock, and the queries a server gave up on at its deadline (the service answers 503 at 4 s, but
 * PostgreSQL runs the query to its end). On a search that takes seconds they would eat into the
 * other side's next slice. With PostgreSQL, until the bench database has no active query; else
 * about as long as the slowest answers took.
 */
let databaseIdle: (() => Promise<void>) | undefined;
export const settleWith = (wait: () => Promise<void>) => {
  databaseIdle = wait;
};
const settle = (result: LoadResult) =>
  databaseIdle ? databaseIdle() : sleep(Math.min(10_000, Number.isFinite(result.p99) ? result.p99 : 1000));

/** One round of requests per connection at least; as many rounds as `seconds` at `rate` take. */
const amountFor = (plan: Plan, rate: number, seconds: number) =>
  plan.connections * Math.max(1, Math.ceil((rate * seconds) / plan.connections));

/** A side's pool of users for POST, and its last rate (requests per second). */
type SideState = { offset: number; rate: number };

async function run(server: Server, plan: Plan, seconds: number, state: SideState): Promise<LoadResult> {
  const job = { ...jobOf(server, plan), duration: seconds, poolOffset: state.offset };
  const result = await runLoad(plan.byCount ? { ...job, amount: amountFor(plan, state.rate, seconds) } : job);
  state.offset += result.usedPool + plan.connections;
  if (result.requests > 0) state.rate = result.requests / result.seconds;
  await settle(result);
  return result;
}

async function warmUp(server: Server, plan: Plan, state: SideState) {
  if (plan.warmup <= 0) return;
  // By count, the first round only tells the rate that the warm-up's seconds are made of.
  if (plan.byCount) await run(server, plan, 0, state);
  await run(server, plan, plan.warmup, state);
}

async function slice(server: Server, plan: Plan, seconds: number, state: SideState): Promise<Slice> {
  const rss = sampleRss(server.pid, 1000);
  const cpu = { server: cpuSeconds(server.pid), postgres: postgresCpu() };
  const result = await run(server, plan, seconds, state);
  const pg = postgresCpu();
  const cpuUsed = cpuSeconds(server.pid) - cpu.server;
  return {
    ...result,
    rss: rss.stop(),
    cpuSeconds: {
      server: cpuUsed,
      postgres: pg === null || cpu.postgres === null ? null : pg - cpu.postgres,
      load: result.loadCpuMs / 1000,
    },
  };
}

/** What one slice, or one pass of a side, adds to a side's result. */
type Part = LoadResult & {
  cpuSeconds: { server: number; postgres: number | null; load: number };
  rss: { startMb: number; endMb: number; maxMb: number };
};

const partOfSlice = (s: Slice): Part => ({
  ...s,
  rss: {
    startMb: s.rss[0]?.mb ?? Number.NaN,
    endMb: s.rss.at(-1)?.mb ?? Number.NaN,
    maxMb: Math.max(...s.rss.map((sample) => sample.mb)),
  },
});

const partOfSide = (side: SideResult): Part => {
  const seconds = (usPerRequest: number) => (usPerRequest * side.requests) / 1e6;
  const { server, postgres, load } = side.cpuUsPerRequest;
  return {
    ...side,
    cpuSeconds: {
      server: seconds(server),
      postgres: postgres === null ? null : seconds(postgres),
      load: seconds(load),
    },
    rss: { startMb: side.rssStartMb, endMb: side.rssEndMb, maxMb: side.rssMaxMb },
  };
};

/**
 * Parts of one side as one result: counts and CPU time add up; the percentiles are the parts'
 * own, averaged with their request counts as weights (autocannon gives no histogram to merge).
 */
function sideOf(parts: Part[]): SideResult {
  const sum = (pick: (p: Part) => number) => parts.reduce((total, p) => total + pick(p), 0);
  const requests = sum((p) => p.requests);
  const seconds = sum((p) => p.seconds);
  const weighted = (pick: (p: Part) => number) =>
    requests === 0 ? Number.NaN : sum((p) => pick(p) * p.requests) / requests;
  const perRequest = (cpuSeconds: number) => (cpuSeconds * 1e6) / requests;
  const postgres = parts.every((p) => p.cpuSeconds.postgres !== null)
    ? perRequest(sum((p) => p.cpuSeconds.postgres ?? 0))
    : null;
  return {
    requests,
    seconds,
    rps: requests / seconds,
    p50: weighted((p) => p.p50),
    p90: weighted((p) => p.p90),
    p99: weighted((p) => p.p99),
    mean: weighted((p) => p.mean),
    max: Math.max(...parts.map((p) => p.max)),
    non2xx: sum((p) => p.non2xx),
    errors: sum((p) => p.errors),
    timeouts: sum((p) => p.timeouts),
    usedPool: sum((p) => p.usedPool),
    loadCpuMs: sum((p) => p.loadCpuMs),
    rssStartMb: parts[0]?.rss.startMb ?? Number.NaN,
    rssEndMb: parts.at(-1)?.rss.endMb ?? Number.NaN,
    rssMaxMb: Math.max(...parts.map((p) => p.rss.maxMb)),
    cpuUsPerRequest: {
      server: perRequest(sum((p) => p.cpuSeconds.server)),
      postgres,
      load: perRequest(sum((p) => p.cpuSeconds.load)),
    },
  };
}

/** A side's slices as one result, printed as it is made. */
function combine(server: Server, plan: Plan, slices: Slice[]): SideResult {
  const side = sideOf(slices.map(partOfSlice));
  const title = `${TITLES[plan.scenario]}${plan.size === undefined ? '' : ` (${plan.size.toLocaleString('en')})`}`;
  say(
    `  ${server.name.padEnd(7)} ${title.padEnd(36)} ${side.rps.toFixed(0).padStart(6)} req/s  ` +
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
export async function measure(
  servers: { service: Server; bare?: Server },
  plan: Plan,
  pools: Pools,
): Promise<{ service: SideResult; bare?: SideResult }> {
  const { service, bare } = servers;
  const states = {
    service: { offset: pools.service.offset, rate: 0 },
    bare: { offset: pools.bare.offset, rate: 0 },
  };
  await warmUp(service, plan, states.service);
  if (bare) await warmUp(bare, plan, states.bare);
  const seconds = plan.duration / plan.rounds;
  const slices: { service: Slice[]; bare: Slice[] } = { service: [], bare: [] };
  for (let round = 0; round < plan.rounds; round++) {
    const order = bare
      ? round % 2 === 0
        ? (['service', 'bare'] as const)
        : (['bare', 'service'] as const)
      : (['service'] as const);
    for (const side of order) {
      const server = side === 'service' ? service : (bare as Server);
      slices[side].push(await slice(server, plan, seconds, states[side]));
    }
  }
  pools.service.offset = states.service.offset;
  pools.bare.offset = states.bare.offset;
  return {
    service: combine(service, plan, slices.service),
    bare: bare && combine(bare, plan, slices.bare),
  };
}

export const ratioOf = (s: SideResult, b: SideResult | undefined) =>
  b && { rps: s.rps / b.rps, p50: s.p50 / b.p50, p99: s.p99 / b.p99 };

/**
 * Each scenario's passes as one result: both sides pooled over the passes, and as its ratios the
 * median of the passes' own. A pass's ratio is measured in one sitting with fresh processes; a
 * pooled figure would let one slow pass of either side move it.
 */
export function mergePasses(passes: ScenarioResult[][]): ScenarioResult[] {
  return (passes[0] ?? []).map(({ name, title }) => {
    const runs = passes.flatMap((pass) => pass.filter((s) => s.name === name));
    const bares = runs.flatMap((s) => (s.bare ? [s.bare] : []));
    const ratios = runs.flatMap((s) => (s.ratio ? [s.ratio] : []));
    const mid = (pick: (r: Ratio) => number) => median(ratios.map(pick));
    return {
      name,
      title,
      service: sideOf(runs.map((s) => partOfSide(s.service))),
      bare: bares.length === runs.length ? sideOf(bares.map(partOfSide)) : undefined,
      ratio:
        ratios.length === runs.length
          ? { rps: mid((r) => r.rps), p50: mid((r) => r.p50), p99: mid((r) => r.p99) }
          : undefined,
      passes: ratios,
    };
  });
}

/**
 * The filtered pages that were measured at the big tenant, measured again at each smaller tenant
 * of the sweep; the big tenant's figures are the last point.
 */
export async function measureSweep(
  servers: { service: Server; bare?: Server },
  plan: Omit<Plan, 'scenario' | 'size'>,
  sizes: number[],
  pools: Pools,
  measured: ScenarioResult[],
  bigSize: number,
): Promise<SweepPoint[]> {
  const names = FILTER_SCENARIOS.filter((name) => measured.some((s) => s.name === name));
  const sweep: SweepPoint[] = [];
  for (const size of names.length > 0 ? sizes : []) {
    say(`size sweep: tenant of ${size.toLocaleString('en')} memberships`);
    for (const scenario of names) {
      const { service: s, bare: b } = await measure(servers, { ...plan, scenario, size }, pools);
      sweep.push({ name: scenario, size, service: s, bare: b, ratio: ratioOf(s, b) });
    }
  }
  if (sweep.length === 0) return [];
  for (const { name, service, bare, ratio } of measured)
    if (isFilter(name)) sweep.push({ name, size: bigSize, service, bare, ratio });
  return sweep;
}
