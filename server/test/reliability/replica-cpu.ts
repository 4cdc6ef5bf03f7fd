import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** CPU seconds (user + system) of each part, and of the whole machine, at one instant. */
export type CpuSample = {
  at: number;
  haproxy: number;
  node: number;
  postgres: number;
  load: number;
  machine: number;
};

const TICKS = 100;

function processSeconds(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** Busy seconds of all cores (everything but idle and iowait), from /proc/stat. */
function machineSeconds(): number {
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS;
}

// The PostgreSQL server is shared with other runs: only the backends of this test's database
// count, and the server's own background processes, whose WAL and buffer writes serve it too.
const AUXILIARY = /^postgres: .*(checkpointer|background writer|walwriter|autovacuum launcher)/;

function postgresSeconds(database: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.startsWith('postgres: ') && (cmdline.includes(` ${database} `) || AUXILIARY.test(cmdline)))
        total += processSeconds(entry);
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

export function sampleCpu(parts: { haproxy: number; node: number[]; database: string }): CpuSample {
  const own = process.cpuUsage();
  return {
    at: performance.now(),
    haproxy: processSeconds(parts.haproxy),
    node: parts.node.reduce((sum, pid) => sum + processSeconds(pid), 0),
    postgres: postgresSeconds(parts.database),
    load: (own.user + own.system) / 1e6,
    machine: machineSeconds(),
  };
}

export type PhaseCpu = Omit<CpuSample, 'at'> & { seconds: number };

export function cpuBetween(before: CpuSample, after: CpuSample): PhaseCpu {
  return {
    seconds: (after.at - before.at) / 1000,
    haproxy: after.haproxy - before.haproxy,
    node: after.node - before.node,
    postgres: after.postgres - before.postgres,
    load: after.load - before.load,
    machine: after.machine - before.machine,
  };
}
