import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf } from '../support/json.js';
import { runToExit, type Spawned, spawnServer } from '../support/spawn-server.js';

let workdir: string;
beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-process-'));
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const tokenFrom = (output: string) => {
  const token = /\n {2}(eyJ[\w-]+\.[\w-]+\.[\w-]+)\n/.exec(output)?.[1];
  if (!token) throw new Error(`no token printed:\n${output}`);
  return token;
};

async function stop(server: Spawned) {
  server.child.kill('SIGTERM');
  return server.exit;
}

/**
 * A POST surely in flight: with `Expect: 100-continue`, `continued` resolves once the server has
 * read it and checked its caller, and it then waits for the body, which `send` gives.
 */
function heldPost(url: string, token: string, body: string) {
  const req = request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      expect: '100-continue',
    },
  });
  const continued = once(req, 'continue');
  // A failure is described, not thrown: it may come while the test waits for something else.
  const answer = new Promise<number | string>((resolve) => {
    req.once('error', (error: NodeJS.ErrnoException) => resolve(`${error.code}: ${error.message}`));
    req.once('response', (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('close', () => {
        if (!res.complete) resolve(`${res.statusCode}, its body cut short`);
      });
    });
  });
  req.flushHeaders();
  return { continued, answer, send: () => req.end(body) };
}

/**
 * What became of a GET sent around the signal: its status, once its answer was read whole, or
 * 'refused' when the server never read it. Anything else is described, and fails the test.
 * node:http, not fetch: Node 20's fetch can lose a request whose connection is reset just after
 * connecting (never written, never settled, the test then stuck until its timeout).
 */
function outcomeOf(url: string, token: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, headers: { authorization: `Bearer ${token}` } });
    req.once('error', (error: NodeJS.ErrnoException) =>
      resolve(refusedUnread(error) ? 'refused' : `${error.code}: ${error.message}`),
    );
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve(res.statusCode ?? 0);
        } catch {
          resolve(`${res.statusCode}, its body not JSON`);
        }
      });
      res.once('close', () => {
        if (!res.complete) resolve(`${res.statusCode}, its body cut short`);
      });
    });
    req.end();
  });
}

function refusedUnread(error: NodeJS.ErrnoException): boolean {
  // The listener is closed: no connection at all.
  if (error.code === 'ECONNREFUSED') return true;
  // A reset, met by a system call: the server destroyed the connection with the request unread
  // (still queued for accept, or not parsed yet), so the kernel answered RST. A clean close with
  // no answer ('socket hang up', no system call) means it read the request, then dropped it.
  return error.code === 'ECONNRESET' && error.syscall !== undefined;
}

describe('a bare start on the embedded database', () => {
  it('prints the docs and a super-administrator token, keeps writes across restarts, and stops on SIGTERM', async () => {
    const first = await spawnServer({}, workdir);
    expect(first.output()).toContain(`${first.baseUrl}/docs`);
    const token = tokenFrom(first.output());
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${first.baseUrl}/admin/tenants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Kept', slug: 'kept-school', owner: { email: 'head@kept.test' } }),
    });
    expect(created.status).toBe(201);
    expect(await stop(first)).toEqual({ code: 0, signal: null });

    const second = await spawnServer({}, workdir);
    try {
      // The same generated secret: the first run's token is still good.
      const list = await fetch(`${second.baseUrl}/admin/tenants?q=kept`, { headers });
      expect(list.status).toBe(200);
      expect((await jsonOf(list)).data).toEqual([expect.objectContaining({ slug: 'kept-school' })]);

      const intruder = await runToExit({}, workdir);
      expect(intruder.code).toBe(1);
      expect(intruder.stdout + intruder.stderr).toMatch(/in use by process \d+/);
    } finally {
      expect((await stop(second)).code).toBe(0);
    }
  });

  it('finishes the requests in flight when SIGTERM arrives', async () => {
    const server = await spawnServer({ PGLITE_DATA_DIR: 'memory://' }, workdir);
    const token = tokenFrom(server.output());
    // Which of the burst below the server took before the signal is chance; this one it surely did.
    const held = heldPost(
      `${server.baseUrl}/admin/tenants`,
      token,
      JSON.stringify({ name: 'Held', slug: 'held-school', owner: { email: 'head@held.test' } }),
    );
    await held.continued;
    const inFlight = Array.from({ length: 30 }, () => outcomeOf(`${server.baseUrl}/me`, token));
    await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGTERM');
    await expect.poll(() => server.output(), { timeout: 5_000, interval: 10 }).toContain('shutting down');
    // Not at once: a server that cuts what is in flight after a shorter grace must fail here too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    held.send();
    expect(await held.answer).toBe(201);
    const outcomes = await Promise.all(inFlight);
    expect(outcomes.filter((outcome) => outcome !== 200 && outcome !== 'refused')).toEqual([]);
    expect(outcomes).toContain(200);
    expect(await server.exit).toEqual({ code: 0, signal: null });
    const afterwards = await fetch(`${server.baseUrl}/health/live`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(afterwards).toBe('refused');
  });
});

describe('a drain before the close (SHUTDOWN_DRAIN_MS)', () => {
  it('serves on after SIGTERM, not ready and closing every connection, then exits 0', async () => {
    // Long enough for the requests below on a loaded machine; the test waits for the log line, not a timer.
    const server = await spawnServer({ PGLITE_DATA_DIR: 'memory://', SHUTDOWN_DRAIN_MS: '5000' }, workdir);
    expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);
    server.child.kill('SIGTERM');
    await expect.poll(() => server.output(), { timeout: 5_000, interval: 10 }).toContain('shutting down');

    const ready = await fetch(`${server.baseUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable' });
    expect(ready.headers.get('connection')).toBe('close');
    const live = await fetch(`${server.baseUrl}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('connection')).toBe('close');
    const me = await fetch(`${server.baseUrl}/me`, {
      headers: { authorization: `Bearer ${tokenFrom(server.output())}` },
    });
    expect(me.status).toBe(200);

    expect(await server.exit).toEqual({ code: 0, signal: null });
  });
});

describe('idle connections (HTTP_KEEP_ALIVE_TIMEOUT_MS)', () => {
  it('are announced as kept for as long as it says, for a balancer whose own idle timeout is shorter', async () => {
    const server = await spawnServer(
      { PGLITE_DATA_DIR: 'memory://', HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000' },
      workdir,
    );
    try {
      const live = await fetch(`${server.baseUrl}/health/live`);
      expect(live.status).toBe(200);
      expect(live.headers.get('keep-alive')).toBe('timeout=65');
    } finally {
      expect((await stop(server)).code).toBe(0);
    }
  });
});

describe('a bad configuration', () => {
  it('stops the start with one clear line per bad variable', async () => {
    const result = await runToExit(
      { PORT: 'eighty', LOG_LEVEL: 'chatty', DATABASE_URL: 'mysql://x' },
      workdir,
    );
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('invalid configuration:');
    expect(
      lines
        .slice(1)
        .map((line) => line.trim().split(':')[0])
        .sort(),
    ).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'PORT']);
    expect(result.stderr).not.toMatch(/\bat \w+ \(/);
  });

  it('refuses WEB_CONCURRENCY above 1 on the embedded database, which one process owns', async () => {
    const result = await runToExit({ WEB_CONCURRENCY: '2' }, workdir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'WEB_CONCURRENCY: more than one process needs PostgreSQL (DATABASE_URL): the embedded PGlite database belongs to one process',
    );
  });

  it('refuses production without a secret', async () => {
    const result = await runToExit({ NODE_ENV: 'production' }, workdir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('AUTH_JWT_SECRET: production needs AUTH_JWT_SECRET or AUTH_JWKS_URL');
  });
});
