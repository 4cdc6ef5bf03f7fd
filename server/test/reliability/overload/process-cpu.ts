import { readFileSync } from 'node:fs';

const CLOCK_TICKS = 100;

/** User and system CPU seconds of a process and its children (a cluster's workers), from /proc. */
export function treeCpuSeconds(pid: number): number {
  let total = 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    for (const child of children.filter(Boolean)) total += treeCpuSeconds(Number(child));
  } catch {
    // gone, or not Linux
  }
  return total;
}
