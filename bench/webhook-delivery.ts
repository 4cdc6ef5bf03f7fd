/**
 * npm run bench:webhooks: does delivery keep up with the changes? Starts the built service on a
 * fresh database (PostgreSQL with BENCH_DATABASE_URL or TEST_DATABASE_URL, else PGlite), a receiver
 * on 127.0.0.1 that verifies every signature with `standardwebhooks`, registers one platform
 * endpoint for every event, then makes BENCH_WEBHOOK_RATE changes per second (a membership added,
 * then removed) for BENCH_DURATION seconds, spread over BENCH_WEBHOOK_TENANTS tenants (default 10:
 * a platform's changes come from many schools; one tenant's writes are serialised by its lock, so
 * BENCH_WEBHOOK_TENANTS=1 measures that lock rather than delivery). Reports the changes made, the deliveries received per
 * second, the lag from commit (the event's occurredAt) to receipt, the backlog when the load stops
 * and how long it takes to drain, and whether every event arrived exactly once and in order.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { createBenchDatabase } from './database.js';
import { cpuSeconds, ROOT, startServer } from './processes.js';
import { startReceiver } from './webhook-receiver.js';

const env = process.env;
const RATE = Number(env.BENCH_WEBHOOK_RATE ?? 200);
const DURATION_S = Number(env.BENCH_DURATION ?? 20);
const TENANTS = Math.max(1, Number(env.BENCH_WEBHOOK_TENANTS ?? 10));
const WARMUP_S = Number(env.BENCH_WARMUP ?? 5);
const DRAIN_LIMIT_MS = 60_000;
const say = (line: string) => console.warn(line);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const secret = randomBytes(32).toString('hex');
const token = (sub: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Body }>;
type Body = { data?: Record<string, string>; error?: { code?: string } };

/**
 * RATE changes a second for `seconds`, spread over the tenants: a membership added, then removed,
 * paced on the clock (not on answers), so that slow answers do not slow the rate.
 */
async function offerLoad(call: Call, tenantIds: string[], seconds: number, label: string) {
  let made = 0;
  let failed = 0;
  const failures = new Map<string, number>();
  const latencies: number[] = [];
  const fail = (status: number, body: Body) => {
    failed += 1;
    const code = `${status} ${body.error?.code ?? ''}`.trim();
    failures.set(code, (failures.get(code) ?? 0) + 1);
  };
  const timed: Call = async (method, path, body) => {
    const sent = performance.now();
    const answer = await call(method, path, body);
    latencies.push(performance.now() - sent);
    return answer;
  };
  const change = async (n: number) => {
    const base = `/tenants/${tenantIds[n % tenantIds.length]}/memberships`;
    const created = await timed('POST', base, { role: 'STUDENT', email: `${label}-${n}@bench.test` });
    if (created.status !== 201) return fail(created.status, created.body);
    made += 1;
    const removed = await timed('DELETE', `${base}/${created.body.data?.tenantMembershipId}`);
    if (removed.status !== 204) return fail(removed.status, removed.body);
    made += 1;
  };
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  const pairs = Math.round((RATE / 2) * seconds);
  for (let n = 0; n < pairs; n++) {
    const wait = started + (n * 2 * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    const job = change(n).finally(() => inFlight.delete(job));
    inFlight.add(job);
  }
  await Promise.all(inFlight);
  return {
    made,
    failed,
    failures,
    loadSeconds: (performance.now() - started) / 1000,
    latencies: latencies.sort((a, b) => a - b),
  };
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'tms-bench-webhooks-'));
  // Each started only once the one before it did, and given back if the next cannot start: a
  // bench that fails to start leaves no database behind (nor a thread holding the process open).
  const receiver = await startReceiver();
  const database = await createBenchDatabase(env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL, tmp).catch(
    async (error: unknown) => {
      await receiver.close();
      throw error;
    },
  );
  const service = await startServer(
    'service',
    [...(env.BENCH_PROFILE === '1' ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), 'server/dist/main.js'],
    {
      ...database.serviceEnv,
      PORT: '0',
      NODE_ENV: 'production',
      LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn',
      AUTH_JWT_SECRET: secret,
      SUPER_ADMIN_SUBJECTS: 'bench-admin',
      RATE_LIMIT_MAX: '0',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
  ).catch(async (error: unknown) => {
    await receiver.close();
    await database.drop();
    throw error;
  });
  try {
    const admin = await token('bench-admin');
    const call: Call = async (method, path, body) => {
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${admin}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text ? (JSON.parse(text) as Body) : {},
      };
    };
    const tenantIds: string[] = [];
    for (let t = 0; t < TENANTS; t++) {
      const tenant = await call('POST', '/admin/tenants', {
        name: `Webhook bench ${t}`,
        slug: `webhook-bench-${t}`,
        owner: { email: `owner-${t}@bench.test` },
      });
      const tenantId = tenant.body.data?.tenantId;
      if (!tenantId) throw new Error(`setup failed: ${JSON.stringify(tenant)}`);
      tenantIds.push(tenantId);
    }
    const endpoint = await call('POST', '/admin/webhooks', { url: receiver.url, events: ['*'] });
    if (endpoint.status !== 201) throw new Error(`setup failed: ${JSON.stringify(endpoint)}`);
    await receiver.verifyWith(String(endpoint.body.data?.secret));
    const benchTenants = new Set(tenantIds);
    const offer = (seconds: number, label: string) => offerLoad(call, tenantIds, seconds, label);

    const ofBench = async () => {
      const received = await receiver.received();
      const deliveries = received.deliveries.filter(
        (delivery) => benchTenants.has(delivery.tenantId ?? '') && delivery.type.startsWith('membership.'),
      );
      return { ...received, deliveries };
    };
    const drained = async (expected: number) => {
      const since = performance.now();
      while ((await ofBench()).deliveries.length < expected && performance.now() - since < DRAIN_LIMIT_MS)
        await sleep(20);
      return performance.now() - since;
    };

    // A cold service (its JIT, its connections) answers and delivers slower for the first seconds:
    // the same load for BENCH_WARMUP seconds first, delivered in full, and left out of the figures.
    say(`warm-up: ${RATE} changes/s for ${WARMUP_S} s`);
    const warm = await offer(WARMUP_S, 'warm');
    await drained(warm.made);
    const before = (await ofBench()).deliveries.length;

    say(`${RATE} changes/s for ${DURATION_S} s over ${TENANTS} tenant(s) on ${database.kind}`);
    const cpuBefore = cpuSeconds(service.pid);
    const run = await offer(DURATION_S, 'run');
    const { made, failed, failures, loadSeconds } = run;
    const backlogAtStop = Math.max(0, before + made - (await ofBench()).deliveries.length);
    const drainMs = await drained(before + made);
    const cpu = cpuSeconds(service.pid) - cpuBefore;

    const final = await ofBench();
    const got = final.deliveries.slice(before);
    const lags = got.map((delivery) => delivery.lagMs).sort((a, b) => a - b);
    const sortedLatencies = run.latencies;
    const report = {
      database: database.kind,
      cores: cpus().length,
      rate: RATE,
      durationS: DURATION_S,
      warmupS: WARMUP_S,
      tenants: TENANTS,
      changesMade: made,
      changesPerSecond: Math.round(made / loadSeconds),
      failedRequests: failed,
      failures: Object.fromEntries(failures),
      delivered: got.length,
      deliveredPerSecond: Math.round(got.length / (loadSeconds + drainMs / 1000)),
      requestMs: {
        p50: Math.round(percentile(sortedLatencies, 0.5)),
        p99: Math.round(percentile(sortedLatencies, 0.99)),
      },
      lagMs: { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags.at(-1) ?? 0 },
      backlogAtStop,
      drainMs: Math.round(drainMs),
      duplicates: final.duplicates,
      outOfOrder: final.outOfOrder,
      badSignatures: final.badSignatures,
      serviceCpuSeconds: Math.round(cpu * 100) / 100,
    };
    say(JSON.stringify(report, null, 2));
    if (env.BENCH_LOG_LEVEL)
      say(
        service
          .output()
          .split('\n')
          .filter((l) => /webhook/.test(l))
          .slice(-15)
          .join('\n'),
      );
    const out = env.BENCH_OUT ?? join(ROOT, 'bench/results/webhooks');
    writeFileSync(`${out}.json`, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(`${out}.md`, markdown(report));
    say(`wrote ${out}.json and ${out}.md`);
    // Kept up: the changes came at the rate, and delivery was less than a second's worth behind them.
    const keptUp =
      report.changesPerSecond >= RATE * 0.95 &&
      report.backlogAtStop <= RATE &&
      report.duplicates === 0 &&
      report.outOfOrder === 0 &&
      report.badSignatures === 0 &&
      got.length >= made;
    if (!keptUp) process.exitCode = 1;
  } finally {
    await service.stop();
    await receiver.close();
    await database.drop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

type Percentiles = { p50: number; p99: number; max?: number };

function markdown(r: Record<string, unknown> & { lagMs: Percentiles; requestMs: Percentiles }): string {
  return `# Webhook delivery under load

\`npm run bench:webhooks\`: ${r.rate} changes per second for ${r.durationS} s over ${r.tenants} tenant(s),
after ${r.warmupS} s of the same load left out (${r.database}, ${r.cores} cores shared by the database, the
service, the load and the receiver), one platform endpoint for every event, on 127.0.0.1.

| | |
|---|---:|
| changes made | ${r.changesMade} (${r.changesPerSecond}/s, ${r.failedRequests} failed requests) |
| their requests | p50 ${r.requestMs.p50} ms, p99 ${r.requestMs.p99} ms |
| deliveries received | ${r.delivered} (${r.deliveredPerSecond}/s) |
| lag, the event's transaction to its receipt | p50 ${r.lagMs.p50} ms, p99 ${r.lagMs.p99} ms, max ${r.lagMs.max} ms |
| backlog when the load stopped | ${r.backlogAtStop} |
| time to drain it | ${r.drainMs} ms |
| duplicates / out of order / bad signatures | ${r.duplicates} / ${r.outOfOrder} / ${r.badSignatures} |
| service CPU | ${r.serviceCpuSeconds} s |
`;
}

await main();
