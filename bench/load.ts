/**
 * One load run, in a process of its own so that the load generator does not share an event loop
 * with the harness. Reads a job (JSON in argv[2]) and prints one JSON line: the result.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { type Fixture, requestsFor, type ScenarioName } from './scenarios.js';

export type LoadJob = {
  url: string;
  scenario: ScenarioName;
  /** Seconds. */
  duration: number;
  connections: number;
  fixtureFile: string;
  poolOffset: number;
};

/** Latencies in milliseconds (autocannon's resolution: 1 ms); rps counts every response. */
export type LoadResult = {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  usedPool: number;
  /** CPU milliseconds the load generator itself used. */
  loadCpuMs: number;
};

async function main() {
  const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob;
  const fixture = JSON.parse(readFileSync(job.fixtureFile, 'utf8')) as Fixture;
  const { requests, usedPool } = requestsFor(job.scenario, fixture, job.poolOffset);
  const cpu = process.cpuUsage();
  const r = await autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.duration,
    requests,
  });
  const result: LoadResult = {
    requests: r.requests.total,
    seconds: r.duration,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    mean: r.latency.average,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    usedPool: usedPool(),
    loadCpuMs: ((used) => (used.user + used.system) / 1000)(process.cpuUsage(cpu)),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
