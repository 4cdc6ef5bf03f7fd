/**
 * npm run bench:webhooks: does delivery keep up with the changes? Starts the built service on a
 * fresh database (PostgreSQL with BENCH_DATABASE_URL or TEST_DATABASE_URL, else PGlite), a receiver
 * on 127.0.0.1 that verifies every signature with `standardwebhooks`, registers one platform
 * endpoint for every event, then makes BENCH_WEBHOOK_RATE changes per second (a membership added,
 * then removed) for BENCH_DURATION seconds. Reports the changes made, the deliveries received per
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

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'tms-bench-webhooks-'));
  const database = await createBenchDatabase(env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL, tmp);
  const receiver = await startReceiver();
  const service = await startServer(
    'service',
    [...(env.BENCH_PROFILE === '1' ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), 'server/dist/main.js'],
    {
      ...database.serviceEnv,
      PORT: '0',
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      AUTH_JWT_SECRET: secret,
      SUPER_ADMIN_SUBJECTS: 'bench-admin',
      RATE_LIMIT_MAX: '0',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
  );
  try {
    const admin = await token('bench-admin');
    const call = async (method: string, path: string, body?: unknown) => {
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
        body: text ? (JSON.parse(text) as { data?: Record<string, string> }) : {},
      };
    };
    const tenant = await call('POST', '/admin/tenants', {
      name: 'Webhook bench',
      slug: 'webhook-bench',
      owner: { email: 'owner@bench.test' },
    });
    const tenantId = tenant.body.data?.tenantId;
    const endpoint = await call('POST', '/admin/webhooks', { url: receiver.url, events: ['*'] });
    if (!tenantId || endpoint.status !== 201) throw new Error(`setup failed: ${JSON.stringify(endpoint)}`);
    receiver.verifyWith(String(endpoint.body.data?.secret));
    const ofTenant = () => receiver.received().filter((delivery) => delivery.tenantId === tenantId);

    say(`${RATE} changes/s for ${DURATION_S} s on ${database.kind}`);
    const base = `/tenants/${tenantId}/memberships`;
    const started = performance.now();
    const cpuBefore = cpuSeconds(service.pid);
    let made = 0;
    let failed = 0;
    const failures = new Map<string, number>();
    const fail = (status: number, body: unknown) => {
      failed += 1;
      const code = `${status} ${(body as { error?: { code?: string } }).error?.code ?? ''}`.trim();
      failures.set(code, (failures.get(code) ?? 0) + 1);
    };
    const inFlight = new Set<Promise<void>>();
    const change = async (n: number) => {
      const created = await call('POST', base, { role: 'STUDENT', email: `bench-${n}@bench.test` });
      if (created.status !== 201) return fail(created.status, created.body);
      made += 1;
      const removed = await call('DELETE', `${base}/${created.body.data?.tenantMembershipId}`);
      if (removed.status !== 204) return fail(removed.status, removed.body);
      made += 1;
    };
    // Two changes per pair, paced on the clock (not on answers), so that slow answers do not slow the rate.
    const pairs = Math.round((RATE / 2) * DURATION_S);
    for (let n = 0; n < pairs; n++) {
      const due = started + (n * 2 * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const job = change(n).finally(() => inFlight.delete(job));
      inFlight.add(job);
    }
    await Promise.all(inFlight);
    const loadSeconds = (performance.now() - started) / 1000;
    // The membership changes made under load, one event each: the tenant's earlier ones predate the endpoint.
    const expected = made;
    const underLoad = () => ofTenant().filter((delivery) => delivery.type.startsWith('membership.'));
    const backlogAtStop = Math.max(0, expected - underLoad().length);
    const stoppedAt = performance.now();
    while (underLoad().length < expected && performance.now() - stoppedAt < DRAIN_LIMIT_MS) await sleep(20);
    const drainMs = performance.now() - stoppedAt;
    const cpu = cpuSeconds(service.pid) - cpuBefore;

    const got = underLoad();
    const lags = got.map((delivery) => delivery.lagMs).sort((a, b) => a - b);
    const report = {
      database: database.kind,
      cores: cpus().length,
      rate: RATE,
      durationS: DURATION_S,
      changesMade: made,
      changesPerSecond: Math.round(made / loadSeconds),
      failedRequests: failed,
      failures: Object.fromEntries(failures),
      delivered: got.length,
      deliveredPerSecond: Math.round(got.length / ((performance.now() - started) / 1000)),
      lagMs: { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags.at(-1) ?? 0 },
      backlogAtStop,
      drainMs: Math.round(drainMs),
      duplicates: receiver.duplicates(),
      outOfOrder: receiver.outOfOrder(),
      badSignatures: receiver.badSignatures(),
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
    const keptUp =
      report.changesPerSecond >= RATE * 0.95 &&
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

function markdown(r: Record<string, unknown> & { lagMs: { p50: number; p99: number; max: number } }): string {
  return `# Webhook delivery under load

\`npm run bench:webhooks\`: ${r.rate} changes per second for ${r.durationS} s (${r.database}, ${r.cores} cores
shared by the database, the service, the load and the receiver), one platform endpoint for every event, on
127.0.0.1.

| | |
|---|---:|
| changes made | ${r.changesMade} (${r.changesPerSecond}/s, ${r.failedRequests} failed requests) |
| deliveries received | ${r.delivered} (${r.deliveredPerSecond}/s) |
| lag, commit to receipt | p50 ${r.lagMs.p50} ms, p99 ${r.lagMs.p99} ms, max ${r.lagMs.max} ms |
| backlog when the load stopped | ${r.backlogAtStop} |
| time to drain it | ${r.drainMs} ms |
| duplicates / out of order / bad signatures | ${r.duplicates} / ${r.outOfOrder} / ${r.badSignatures} |
| service CPU | ${r.serviceCpuSeconds} s |
`;
}

await main();
