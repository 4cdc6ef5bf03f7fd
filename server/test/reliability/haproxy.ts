import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort } from '../support/free-port.js';
import { runHaProxy } from './haproxy-process.js';

/** One row of `show stat` for a server: its state and what HAProxy counted for it. */
export type ServerStat = Record<string, string> & { svname: string; status: string };

export type HaProxy = {
  url: string;
  pid: number;
  /** `haproxy -v`'s first line, e.g. "HAProxy version 2.6.12-1+deb12u4". */
  version: string;
  /** The health checks' interval and fall, as configured: how soon a dead server must be seen. */
  check: { interMs: number; fall: number; rise: number };
  /** One command on the runtime API (the admin socket) and its answer. */
  command(line: string): Promise<string>;
  servers(): Promise<ServerStat[]>;
  /** Connections retried or sent to another server since the start (refused: nothing was sent). */
  rerouted(): Promise<number>;
  /** Polls the runtime API until `server`'s status starts with `status`; the instant it was seen. */
  waitFor(server: string, status: 'UP' | 'DOWN' | 'MAINT', timeoutMs?: number): Promise<number>;
  /** Points slot `server` at another port and lets health checks bring it back. */
  moveServer(server: string, port: number): Promise<void>;
  /** HAProxy's own log: only abnormal requests (errors, retries, 5xx) are logged. */
  log(): string;
  stop(): Promise<void>;
};

const CHECK = { interMs: 250, fall: 2, rise: 2 };

function config(dir: string, port: number, backends: number[]): string {
  return [
    'global',
    `  stats socket ${join(dir, 'admin.sock')} mode 600 level admin`,
    '  log stdout format raw local0 info',
    'defaults',
    '  mode http',
    '  log global',
    '  option httplog',
    '  option dontlog-normal',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout http-keep-alive 30s',
    // Above the service's own request deadline (4 s), which answers 503 itself.
    '  timeout server 10s',
    '  timeout queue 5s',
    // A slow check (the machine is busy) is not a dead server; a refused one fails at once.
    '  timeout check 2s',
    // Only a connection that could not be opened is retried, on another server if need be: no byte
    // of the request has left HAProxy, so even a POST cannot run twice. A request that reached a
    // server and got no answer (empty-response, a reset) is not retried: the server may have
    // committed it, and a second create would be a different write.
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure',
    // "safe" (the default, spelled out): a client's first request never rides a kept-alive server
    // connection, which the server may be closing at that instant.
    '  http-reuse safe',
    'frontend fe',
    `  bind 127.0.0.1:${port}`,
    '  default_backend be',
    'backend be',
    '  balance roundrobin',
    '  option httpchk GET /health/ready',
    '  http-check expect status 200',
    // A connection the server refuses takes it out at once, not two checks later: a process that
    // died is not handed the next requests meanwhile. (Layer 4 only: at layer 7 a single 5xx would
    // do it too, and any caller who can provoke a 500 could take every server out in turn.) The
    // checks bring it back (rise), and still detect a server that fails without refusing.
    `  default-server inter ${CHECK.interMs}ms fall ${CHECK.fall} rise ${CHECK.rise} observe layer4 error-limit 1 on-error mark-down`,
    ...backends.map((p, n) => `  server s${n + 1} 127.0.0.1:${p} check`),
    '',
  ].join('\n');
}

/**
 * Debian's HAProxy in front of the given ports (slots s1, s2, ... in order), round robin, health
 * checking `GET /health/ready`. Its config and admin socket live in a temporary directory; the
 * system's own HAProxy service is never touched.
 */
export async function startHaProxy(backends: number[]): Promise<HaProxy> {
  const port = await freePort();
  const proxy = runHaProxy('tms-haproxy-', (dir) => config(dir, port, backends));
  const { dir, binary, child } = proxy;

  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = connect(join(dir, 'admin.sock'));
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.once('error', reject);
      socket.once('end', () => resolve(answer));
      socket.end(`${line}\n`);
    });
  const servers = async (): Promise<ServerStat[]> => {
    const [header, ...rows] = (await command('show stat')).trim().split('\n');
    const names = (header ?? '').replace(/^# /, '').split(',');
    return rows
      .map((row) => Object.fromEntries(row.split(',').map((value, k) => [names[k] ?? `${k}`, value])))
      .filter((row) => row.pxname === 'be' && /^s\d+$/.test(row.svname ?? '')) as ServerStat[];
  };
  const haproxy: HaProxy = {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    version:
      execFileSync(binary, ['-v']).toString().split('\n')[0]?.replace(' - https://haproxy.org/', '') ?? '',
    check: CHECK,
    command,
    servers,
    rerouted: async () =>
      (await servers()).reduce((sum, s) => sum + Number(s.wretr || 0) + Number(s.wredis || 0), 0),
    waitFor: async (server, status, timeoutMs = 20_000) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const row = (await servers()).find((s) => s.svname === server);
        const seen = performance.now();
        if (row?.status.startsWith(status) && !row.status.startsWith(`${status} `)) return seen;
        if (seen > deadline) throw new Error(`${server} not ${status} in ${timeoutMs} ms: ${row?.status}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    moveServer: async (server, to) => {
      const answer = await command(`set server be/${server} addr 127.0.0.1 port ${to}`);
      if (!/changed|no need to change/i.test(answer)) throw new Error(`set server addr: ${answer}`);
    },
    log: proxy.output,
    stop: proxy.stop,
  };
  // Ready once the runtime API answers.
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await servers();
      return haproxy;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await haproxy.stop();
        throw new Error(`haproxy did not start: ${(error as Error).message}\n${proxy.output()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
