/**
 * One load run, in a process of its own so that the load generator does not share an event loop
 * with the harness. Reads a job (JSON in argv[2]) and prints one JSON line: the result.
 */
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { type Fixture, requestsFor, type ScenarioName } from './scenarios.js';

export type LoadJob = {
  url: string;
  scenario: ScenarioName;
  /** Seconds; or, with `amount`, until that many requests have been answered (none left running). */
  duration: number;
  amount?: number;
  connections: number;
  fixtureFile: string;
  poolOffset: number;
  /** The filtered pages at the sweep's tenant of this size (the big tenant if absent). */
  size?: number;
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
  const { requests, usedPool } = requestsFor(job.scenario, fixture, job.poolOffset, job.size);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let answered = started;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = {
      url: job.url,
      connections: job.connections,
      ...(job.amount ? { amount: job.amount } : { duration: job.duration }),
      requests,
    };
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    (instance as unknown as EventEmitter).on('response', () => {
      answered = performance.now();
    });
  });
  // autocannon's own duration counts whole ticks of its one-second timer: right for a run of
  // fixed seconds, not for one that ends with its last answer.
  const seconds = job.amount ? (answered - started) / 1000 : r.duration;
  const result: LoadResult = {
    requests: r.requests.total,
    seconds,
    rps: r.requests.total / seconds,
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
