import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { LoadJob, LoadResult } from './load.js';

export const ROOT = new URL('..', import.meta.url).pathname;

export type Server = { name: string; url: string; pid: number; output(): string; stop(): Promise<void> };

/** The service prints "listening on <url>" at info and "Docs:  <url>/docs" whatever the level. */
const LISTENING = /listening on (http:\/\/[^"\s]+)|Docs:\s+(http:\/\/\S+)\/docs/;

export async function startServer(
  name: string,
  args: string[],
  env: Record<string, string>,
): Promise<Server> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: not listening after 120 s\n${output}`)),
      120_000,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk).slice(-20_000);
      const match = LISTENING.exec(output);
      const url = match?.[1] ?? match?.[2];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before listening:\n${output}`));
    });
  });
  return { name, url, pid: child.pid ?? -1, output: () => output, stop: () => stop(child, exited) };
}

/** SIGTERM (the service drains and exits, writing its CPU profile if asked), SIGKILL after 20 s. */
async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** Resident set size in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
}

const CLOCK_TICKS = 100;

/** User + system CPU seconds of a process, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds of the PostgreSQL backends serving one database (local server only). */
export function postgresCpuSeconds(database: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres: ') && cmdline.includes(` ${database} `))
        total += cpuSeconds(Number(entry));
    } catch {
      // gone
    }
  }
  return total;
}

export type RssSample = { t: number; mb: number };

export function sampleRss(pid: number, everyMs: number): { stop(): RssSample[] } {
  const started = Date.now();
  const samples: RssSample[] = [{ t: 0, mb: rssMb(pid) }];
  const timer = setInterval(
    () => samples.push({ t: (Date.now() - started) / 1000, mb: rssMb(pid) }),
    everyMs,
  );
  return {
    stop: () => {
      clearInterval(timer);
      samples.push({ t: (Date.now() - started) / 1000, mb: rssMb(pid) });
      return samples;
    },
  };
}

/** Runs bench/load.ts in a process of its own and returns its result line. */
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/load.ts', JSON.stringify(job)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
}
