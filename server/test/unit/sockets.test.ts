import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type HostAddress, type HostRole, HostSelector } from '../../src/db/host-selection.js';
import { Sockets } from '../../src/db/sockets.js';

const driverOptions = { host: ['ignored'], port: [1] };
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A TCP server on loopback that hands the test each connection it accepts. */
async function listen(): Promise<{ address: HostAddress; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => accepted.push(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { address: { host: '127.0.0.1', port }, accepted };
}

/** How the driver treats the socket: listeners attached after it awaited the factory. */
function settled(socket: Socket) {
  return new Promise<{ error?: Error; closed: boolean }>((resolve) => {
    let error: Error | undefined;
    socket.on('error', (e) => (error = e));
    socket.on('close', () => resolve({ error, closed: true }));
  });
}

describe('the sockets of a pool on a multi-host URL', () => {
  it('connect to the writable host, and ask again once a connection to it closes', async () => {
    const { address, accepted } = await listen();
    let probes = 0;
    const selector = new HostSelector([address], async (): Promise<HostRole> => {
      probes++;
      return 'writable';
    });
    const sockets = new Sockets({ selector });
    const socket = await sockets.connect(driverOptions);
    const closed = settled(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    expect(socket).toMatchObject({ host: '127.0.0.1', port: address.port });
    expect(probes).toBe(1);
    // The server ends the session (pg_terminate_backend, a restart, a failover).
    while (accepted.length === 0) await new Promise((resolve) => setImmediate(resolve));
    accepted[0]?.destroy();
    await closed;
    // Closed without a word: the next try comes after the pause of an unreachable database.
    await new Promise((resolve) => setTimeout(resolve, 260));
    const again = await sockets.connect(driverOptions);
    expect(probes).toBe(2);
    again.destroy();
  });

  it('ask again after a TLS connection ends, though the driver removed every listener to wrap it', async () => {
    const { address } = await listen();
    let probes = 0;
    const selector = new HostSelector([address], async (): Promise<HostRole> => {
      probes++;
      return 'writable';
    });
    const sockets = new Sockets({ selector });
    const socket = await sockets.connect(driverOptions);
    await new Promise((resolve) => socket.once('connect', resolve));
    // What postgres.js does before tls.connect({ socket }); the TLS socket's end destroys this one.
    socket.removeAllListeners();
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 260));
    (await sockets.connect(driverOptions)).destroy();
    expect(probes).toBe(2);
  });

  it('without a writable host, fail like a refused connection, after the driver listens', async () => {
    const selector = new HostSelector(
      [{ host: '127.0.0.1', port: 1 }],
      async (): Promise<HostRole> => 'read-only',
    );
    const socket = await new Sockets({ selector }).connect(driverOptions);
    const outcome = await settled(socket);
    expect(outcome.error).toMatchObject({ code: 'NO_WRITABLE_HOST' });
    expect(outcome.error?.message).toMatch(/127\.0\.0\.1:1 read-only/);
  });

  it('fail when the peer closes before a word (a balancer with no backend): the driver would reconnect for ever', async () => {
    const { address } = await listen();
    const server = servers.at(-1);
    server?.removeAllListeners('connection');
    server?.on('connection', (socket) => socket.end());
    const socket = await new Sockets().connect({ host: [address.host], port: [address.port] });
    socket.on('data', () => {});
    const outcome = await settled(socket);
    expect(outcome.error).toMatchObject({ code: 'ECONNRESET' });
  });

  it('with one host, connect to it as the driver read it', async () => {
    const { address } = await listen();
    const socket = new Sockets().connect({ host: [address.host], port: [address.port] }) as Socket;
    await new Promise((resolve) => socket.once('connect', resolve));
    expect(socket).toMatchObject({ host: address.host, port: address.port });
    socket.destroy();
  });
});

/** A server that answers each chunk with `pong` when `answering`, and says nothing otherwise. */
async function peer() {
  const state = { answering: true };
  const { address, accepted } = await listen();
  const server = servers.at(-1);
  server?.on('connection', (socket) => socket.on('data', () => state.answering && socket.write('pong')));
  return { address, accepted, state };
}

const STALL = 6000;
const UNSURE = 31_000;

async function connected(sockets: Sockets, address: HostAddress): Promise<Socket> {
  const socket = (await sockets.connect({ host: [address.host], port: [address.port] })) as Socket;
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

const answered = (socket: Socket) => new Promise((resolve) => socket.once('data', resolve));
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a connection that stops answering is replaced, and only it', () => {
  it('in the clear: one waiting past the stall is destroyed; one waiting less, or heard from since, is not', async () => {
    const { address, state } = await peer();
    const stalled: Socket[] = [];
    const sockets = new Sockets({ stallMs: STALL, onStalled: (socket) => stalled.push(socket) });
    const [silent, answering, waiting] = [
      await connected(sockets, address),
      await connected(sockets, address),
      await connected(sockets, address),
    ];
    state.answering = false;
    silent.write('ping');
    await tick();
    // Heard from after the silent one's wait began: the way to the database works.
    state.answering = true;
    answering.write('ping');
    await answered(answering);
    state.answering = false;
    await tick();
    const later = performance.now();
    waiting.write('ping');
    // A statement may run, or wait for a lock, up to its timeout: not yet.
    expect(sockets.destroyStalled(later + STALL - 100 - 40)).toBe(0);
    expect(sockets.destroyStalled(later + STALL - 1)).toBe(1);
    expect(stalled).toEqual([silent]);
    expect(silent.destroyed).toBe(true);
    expect(answering.destroyed).toBe(false);
    expect(waiting.destroyed).toBe(false);
    answering.destroy();
    waiting.destroy();
  });

  it('an idle one not heard from since the stalled wait began goes with it: it leads, as likely, nowhere', async () => {
    const { address, state } = await peer();
    const stalled: Socket[] = [];
    const sockets = new Sockets({ stallMs: STALL, onStalled: (socket) => stalled.push(socket) });
    const [heardBefore, neverHeard, silent] = [
      await connected(sockets, address),
      await connected(sockets, address),
      await connected(sockets, address),
    ];
    heardBefore.write('ping');
    await answered(heardBefore);
    await tick();
    state.answering = false;
    silent.write('ping');
    await tick();
    const now = performance.now();
    // No stall yet: idle sockets are left alone, however long they have been idle.
    expect(sockets.destroyStalled(now + STALL - 100)).toBe(0);
    expect(heardBefore.destroyed || neverHeard.destroyed).toBe(false);
    expect(sockets.destroyStalled(now + STALL + 100)).toBe(3);
    expect(stalled).toEqual([silent, heardBefore, neverHeard]);
    expect([heardBefore, neverHeard, silent].every((socket) => socket.destroyed)).toBe(true);
  });

  it('tells the cut to the other pools, whose idle sockets not heard from since are closed', async () => {
    const { address, state } = await peer();
    const cuts: number[] = [];
    const requests = new Sockets({ stallMs: STALL, onCut: (since) => cuts.push(since) });
    const long = new Sockets({ stallMs: 16 * 60_000 });
    const [longIdle, silent] = [await connected(long, address), await connected(requests, address)];
    state.answering = false;
    const before = performance.now();
    silent.write('ping');
    await tick();
    const now = performance.now();
    expect(requests.destroyStalled(now + STALL + 100)).toBe(1);
    expect(cuts).toHaveLength(1);
    expect(cuts[0]).toBeGreaterThanOrEqual(before);
    // Heard from after the cut began: kept. Idle since before it: closed.
    state.answering = true;
    const longHeard = await connected(long, address);
    longHeard.write('ping');
    await answered(longHeard);
    expect(long.closeUnheardSince(cuts[0] as number)).toBe(1);
    expect(longIdle.destroyed).toBe(true);
    expect(longHeard.destroyed).toBe(false);
    longHeard.destroy();
  });

  it('under TLS (counted bytes): a wait after the last answer is a stall; an answer and a statement in one look wait longer', async () => {
    const { address, state } = await peer();
    const sockets = new Sockets({ stallMs: STALL, unsureStallMs: UNSURE });
    const silent = await connected(sockets, address);
    const unsure = await connected(sockets, address);
    // What postgres.js does to hand a socket to TLS: from then on only the byte counters tell.
    silent.removeAllListeners();
    unsure.removeAllListeners();
    const start = performance.now();
    expect(sockets.destroyStalled(start)).toBe(0);
    // Both an answer and a next statement since the last look: which came first is not known.
    unsure.write('ping');
    await new Promise((resolve) => setTimeout(resolve, 50));
    state.answering = false;
    unsure.write('ping');
    silent.write('ping');
    await tick();
    const now = performance.now();
    expect(sockets.destroyStalled(now)).toBe(0);
    expect(sockets.destroyStalled(now + STALL + 100)).toBe(1);
    expect(silent.destroyed).toBe(true);
    expect(unsure.destroyed).toBe(false);
    expect(sockets.destroyStalled(now + UNSURE + 100)).toBe(1);
    expect(unsure.destroyed).toBe(true);
  });
});

describe('while the database cannot be reached', () => {
  it('tries a connection every 250 ms and fails the others at once; one answered ends it', async () => {
    const { address, accepted } = await listen();
    const server = servers.at(-1);
    let refusing = true;
    server?.removeAllListeners('connection');
    // A balancer with no primary behind it closes at once; with one, the server speaks first.
    server?.on('connection', (socket) => {
      accepted.push(socket);
      if (refusing) socket.end();
      else socket.write('R');
    });
    const sockets = new Sockets();
    const connectOnce = () => sockets.connect({ host: [address.host], port: [address.port] }) as Socket;
    const first = connectOnce();
    first.on('data', () => {});
    expect((await settled(first)).error).toMatchObject({ code: 'ECONNRESET' });
    expect(sockets.unreachable).toBe(true);
    // Within the next 250 ms: refused here, without a connection.
    const before = accepted.length;
    const fast = await Promise.all([connectOnce(), connectOnce(), connectOnce()].map(settled));
    expect(fast.map((outcome) => (outcome.error as { code?: string } | undefined)?.code)).toEqual([
      'ECONNREFUSED',
      'ECONNREFUSED',
      'ECONNREFUSED',
    ]);
    expect(accepted.length).toBe(before);
    // The database is back: the next try is answered, and every connection goes through again.
    refusing = false;
    await new Promise((resolve) => setTimeout(resolve, 260));
    const probe = connectOnce();
    await new Promise((resolve) => probe.once('data', resolve));
    expect(sockets.unreachable).toBe(false);
    const next = connectOnce();
    await new Promise((resolve) => next.once('data', resolve));
    probe.destroy();
    next.destroy();
  });
});
