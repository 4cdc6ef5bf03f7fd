import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's HAProxy, run on a config of the test's own in a temporary directory. */
export type HaProxyProcess = {
  child: ChildProcess;
  /** The directory of its config, where an admin socket may live too. */
  dir: string;
  binary: string;
  output(): string;
  /** SIGTERM, SIGKILL after 5 s; the directory removed. */
  stop(): Promise<void>;
};

/**
 * Starts HAProxy on the config `configOf(dir)` returns, written into a fresh temporary directory.
 * The system's own HAProxy service is never touched.
 */
export function runHaProxy(prefix: string, configOf: (dir: string) => string): HaProxyProcess {
  let binary: string;
  try {
    binary = execFileSync('sh', ['-c', 'command -v haproxy']).toString().trim();
  } catch {
    throw new Error('haproxy is not installed: apt-get install -y haproxy (.ci/run does it)');
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, configOf(dir));
  const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-500_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    dir,
    binary,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
