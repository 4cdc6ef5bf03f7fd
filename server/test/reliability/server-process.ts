import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { MAIN, type Spawned } from '../support/spawn-server.js';

export type { Spawned };

/**
 * Runs the built server like spawnServer, at LOG_LEVEL=warn by default (no line per request), so
 * it waits for the "Docs: <url>/docs" line that main.ts prints at every level rather than for the
 * info-level "listening on" line. RATE_LIMIT_MAX=0 by default: these tests hammer the service with
 * one subject on purpose, and a 429 would hide what they look at (ignored by a build without it).
 */
export async function startServerProcess(env: Record<string, string>, cwd: string): Promise<Spawned> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the server first (npx turbo run build)`);
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    // Bounded: a long run at LOG_LEVEL=warn logs one line per 503.
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "Docs:" line in 30 s:\n${output}`)), 30_000);
    const onData = () => {
      const match = /(?:Docs:\s+|listening on )(http:\/\/[^"\s]+?)(?:\/docs)?(?=["\s])/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  return { child, baseUrl, output: () => output, exit };
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`; resolves with the exit. */
export async function stopServerProcess(server: Spawned, graceMs = 15_000) {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
  try {
    return await server.exit;
  } finally {
    clearTimeout(timer);
  }
}
