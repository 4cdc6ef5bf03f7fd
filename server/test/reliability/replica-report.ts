import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { analysis, costs, type Phase, round } from './replica-analysis.js';
import { type CpuSample, cpuBetween } from './replica-cpu.js';
import { type Outcome, ok } from './replica-load.js';

const RESULTS = new URL('../../../bench/results/', import.meta.url);

/** The requests answered between two CPU samples, and what they cost. */
export function phaseOf(
  processes: number,
  clients: number,
  outcomes: Outcome[],
  before: CpuSample,
  after: CpuSample,
) {
  const answered = outcomes.filter((o) => o.endedAt >= before.at && o.endedAt < after.at);
  const ms = answered.map((o) => o.endedAt - o.startedAt).sort((a, b) => a - b);
  return {
    processes,
    clients,
    requests: answered.length,
    failures: answered.filter((o) => !ok(o)).length,
    reqPerSec: answered.length / ((after.at - before.at) / 1000),
    p50Ms: ms[Math.floor(ms.length / 2)] ?? 0,
    p99Ms: ms[Math.floor(ms.length * 0.99)] ?? 0,
    cpu: cpuBetween(before, after),
  } satisfies Phase;
}

export function table(phases: Phase[]): string {
  const header =
    '| processes | req/s | p50 ms | p99 ms | failed | CPU ms/req: HAProxy | node | PostgreSQL | load generator | total | cores busy: ours / machine |';
  const rows = phases.map((phase) => {
    const c = costs(phase);
    const p = c.perRequest;
    return `| ${phase.processes} | ${Math.round(phase.reqPerSec)} | ${round(phase.p50Ms, 1)} | ${round(phase.p99Ms, 1)} | ${phase.failures} | ${p.haproxy} | ${p.node} | ${p.postgres} | ${p.load} | ${c.totalMs} | ${c.oursCores} / ${c.machineCores} |`;
  });
  return [header, `|${'---:|'.repeat(11)}`, ...rows].join('\n');
}

/** bench/results/replicas.json and .md; returns the markdown. */
export function writeReport(phases: Phase[], meta: { seconds: number; clients: number; haproxy: string }) {
  mkdirSync(RESULTS, { recursive: true });
  const date = new Date().toISOString();
  const cores = availableParallelism();
  const json = { date, cores, ...meta, phases: phases.map((phase) => ({ ...phase, ...costs(phase) })) };
  writeFileSync(new URL('replicas.json', RESULTS), `${JSON.stringify(json, null, 2)}\n`);
  const md = [
    '# Replicas behind HAProxy',
    '',
    `\`server/test/reliability/replicas.test.ts\`, ${date}: ${meta.clients} kept-alive clients in a closed loop ` +
      `(3 reads and 1 create each round, one tenant per client) through ${meta.haproxy} (round robin), ` +
      `${meta.seconds} s per phase after a warm-up, on ${cores} cores shared by HAProxy, the node processes, ` +
      'PostgreSQL, the load generator, and whatever else the machine ran at the time (the difference between ' +
      'the two "cores busy" figures).',
    '',
    table(phases),
    '',
    'CPU is user + system time from `/proc/<pid>/stat`: HAProxy, every server process (those out of the ' +
      "rotation too), this database's PostgreSQL backends with the server's background writers, and the test " +
      'process, which generates the load.',
    '',
    '## Where the bottleneck is',
    '',
    analysis(phases, cores),
    '',
  ].join('\n');
  writeFileSync(new URL('replicas.md', RESULTS), md);
  return md;
}
