import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, runToExit, type Spawned, spawnServer } from '../support/spawn-server.js';

let workdir: string;
beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-lock-'));
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const processState = (pid: number) => {
  try {
    // The third field of /proc/<pid>/stat: R, S, ... or Z for a zombie.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
  } catch {
    return undefined;
  }
};

/**
 * Starts the server under a parent that never reaps it: `sh` backgrounds the server, then becomes
 * `sleep`, which never calls wait(). A server killed with SIGKILL stays a zombie, its pid still
 * taken, until the parent goes.
 */
async function spawnUnreaped(env: Record<string, string>, cwd: string) {
  const parent = spawn(
    '/bin/sh',
    ['-c', '"$0" "$1" & echo "server pid $!"; exec sleep 600', process.execPath, MAIN],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  parent.stdout.on('data', (chunk) => {
    output += chunk;
  });
  parent.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 30_000;
  while (!/listening on http/.test(output)) {
    if (Date.now() > deadline) throw new Error(`no "listening on" line in 30 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = Number(/server pid (\d+)/.exec(output)?.[1]);
  return { parent, pid };
}

const stop = async (server: Spawned) => {
  server.child.kill('SIGTERM');
  return server.exit;
};

describe.skipIf(process.platform !== 'linux')('the embedded database lock', () => {
  it('is free at once after its holder is killed, even while the dead holder is a zombie', async () => {
    const env = { PGLITE_DATA_DIR: join(workdir, 'killed') };
    const { parent, pid } = await spawnUnreaped(env, workdir);
    try {
      process.kill(pid, 'SIGKILL');
      while (processState(pid) !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10));

      const restarted = await spawnServer(env, workdir);
      // Still a zombie: nothing about the lock waited for the dead process to be reaped.
      expect(processState(pid)).toBe('Z');
      expect(await stop(restarted)).toEqual({ code: 0, signal: null });
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('does not trust pids: a lock file naming a live, unrelated process does not block a start', async () => {
    const dataDir = join(workdir, 'reused-pid');
    mkdirSync(dataDir, { recursive: true });
    // What a SIGKILLed server left behind, its pid since reused by another process (this one).
    writeFileSync(join(dataDir, 'tms.lock'), String(process.pid));
    const server = await spawnServer({ PGLITE_DATA_DIR: dataDir }, workdir);
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });

  it('refuses a second live process with the holder pid, and is free once the holder stops', async () => {
    const env = { PGLITE_DATA_DIR: join(workdir, 'shared') };
    const holder = await spawnServer(env, workdir);
    try {
      const intruder = await runToExit(env, workdir);
      expect(intruder.code).toBe(1);
      expect(intruder.stdout + intruder.stderr).toContain(
        `the embedded database ${env.PGLITE_DATA_DIR} is in use by process ${holder.child.pid}`,
      );
    } finally {
      expect((await stop(holder)).code).toBe(0);
    }
    const next = await spawnServer(env, workdir);
    expect((await stop(next)).code).toBe(0);
  });
});
