import { availableParallelism } from 'node:os';
import type { PhaseCpu } from './replica-cpu.js';

export type Phase = {
  processes: number;
  clients: number;
  requests: number;
  failures: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  cpu: PhaseCpu;
};

const PARTS = ['haproxy', 'node', 'postgres', 'load'] as const;
const ms = (seconds: number, requests: number) => Math.round((seconds * 1e6) / Math.max(requests, 1)) / 1000;
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Per phase: CPU ms per request of each part, and cores kept busy (this test's, and the machine's). */
export function costs(phase: Phase) {
  const perRequest = Object.fromEntries(PARTS.map((p) => [p, ms(phase.cpu[p], phase.requests)])) as Record<
    (typeof PARTS)[number],
    number
  >;
  const ours = PARTS.reduce((sum, p) => sum + phase.cpu[p], 0);
  return {
    perRequest,
    serviceMs: round(perRequest.haproxy + perRequest.node + perRequest.postgres, 3),
    totalMs: round(ms(ours, phase.requests), 3),
    oursCores: round(ours / phase.cpu.seconds),
    machineCores: round(phase.cpu.machine / phase.cpu.seconds),
    nodeCoresEach: round(phase.cpu.node / phase.cpu.seconds / phase.processes),
  };
}

const plural = (n: number) => `${n} process${n > 1 ? 'es' : ''}`;

/** What held a phase back, from its own figures. */
function limit(phase: Phase, cores: number): { kind: 'process' | 'machine' | 'clients'; text: string } {
  const c = costs(phase);
  if (c.nodeCoresEach >= 0.85)
    return {
      kind: 'process',
      text: `${phase.processes > 1 ? 'its node processes, one thread each' : 'its node process, one thread'}, at ${c.nodeCoresEach} of a core`,
    };
  if (c.machineCores >= 0.85 * cores)
    return {
      kind: 'machine',
      text: `the machine's CPU: ${c.machineCores} of ${cores} cores busy, ${c.oursCores} of them this test's`,
    };
  return {
    kind: 'clients',
    text: `the ${phase.clients} clients' round trips (${c.machineCores} of ${cores} cores busy)`,
  };
}

const VERDICT = {
  machine:
    'The bottleneck is the CPU of the machine, not the number of processes: a process adds throughput only ' +
    'while a core is idle for it, and the cores are already shared by node, PostgreSQL, HAProxy and the load.',
  process:
    'The bottleneck is the node processes: each is one thread, and another process would add throughput.',
  clients: 'Neither the CPU nor a process was saturated: more concurrent clients would have gone faster.',
};

/** Where the time went, computed from the figures, and what they predict with more cores. */
export function analysis(phases: Phase[], cores = availableParallelism()): string {
  const lines = phases.map(
    (p) => `- ${plural(p.processes)}: ${Math.round(p.reqPerSec)} req/s, limited by ${limit(p, cores).text}.`,
  );
  const gains = phases
    .slice(1)
    .map(
      (p, k) =>
        `${phases[k]?.processes} to ${p.processes}: x${round(p.reqPerSec / (phases[k]?.reqPerSec || 1))}`,
    );
  const best = phases.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
  const last = phases.at(-1) ?? best;
  const c = costs(best);
  const { haproxy, node, postgres, load } = c.perRequest;
  const share = (part: number) => `${Math.round((100 * part) / c.serviceMs)}%`;
  const predict = (k: number) =>
    `${k} cores, about ${Math.round((k * 1000) / c.serviceMs)} req/s from at least ` +
    `${Math.ceil((k * node) / c.serviceMs)} node processes`;
  return [
    ...lines,
    '',
    `From one process count to the next, req/s changed ${gains.join(', ')}. ${VERDICT[limit(last, cores).kind]} ` +
      `A request costs ${c.totalMs} ms of CPU in all (with ${plural(best.processes)}, the fastest phase): ` +
      `node ${node}, PostgreSQL ${postgres}, HAProxy ${haproxy}, and ${load} in the load generator. ` +
      `${cores} cores / ${c.totalMs} ms = ${Math.round((cores * 1000) / c.totalMs)} req/s is what this machine ` +
      `could do if it ran nothing else; it did ${Math.round(best.reqPerSec)} with ${c.machineCores} cores busy, ` +
      `${round(Math.max(0, c.machineCores - c.oursCores))} of them other programs'. One node process alone would stop near ` +
      `1000 / ${node} = ${Math.round(1000 / node)} req/s.`,
    '',
    `With the load generated elsewhere, the service needs ${c.serviceMs} ms of CPU per request: ` +
      `${share(node)} in node, ${share(postgres)} in PostgreSQL, ${share(haproxy)} in HAProxy. If that cost ` +
      `held (it rises with contention, and writes to one tenant are serialised by its lock), that predicts ` +
      `${[4, 8, 16].map(predict).join('; ')}, PostgreSQL taking ${share(postgres)} of the cores. Node scales ` +
      'out with processes and machines; PostgreSQL is the part every replica shares, so past one database ' +
      "server's cores it is the limit, and what sharding by tenant would split.",
  ].join('\n');
}
