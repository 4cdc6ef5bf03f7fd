import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeHost } from '../../src/db/host-probe.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server on loopback that accepts connections and does `onConnection` with them. */
async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer(onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** A probe of a port on loopback, with the URL of that host. */
const probeLocal = (port: number, timeoutMs: number) =>
  probeHost(`postgres://app@127.0.0.1:${port}/tms`, { host: '127.0.0.1', port }, timeoutMs);

describe('probeHost: whether a host takes writes, without ever rejecting', () => {
  it('a host that accepts and never answers is unreachable at the timeout, and its connection is closed', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    // Reads and drops what it is sent (a paused socket would never see the client's end).
    const port = await listen((socket) => socket.resume().on('close', closed));
    const started = performance.now();
    await expect(probeLocal(port, 300)).resolves.toBe('unreachable');
    expect(performance.now() - started).toBeLessThan(2000);
    // Ended with its startup in flight (CONNECTION_DESTROYED inside the driver): no unhandled
    // rejection, which would fail this test, and nothing left open.
    await connectionClosed;
  });

  it('a refused connection is unreachable', async () => {
    const refused = await listen((socket) => socket.destroy());
    servers.pop()?.close();
    await expect(probeLocal(refused, 2000)).resolves.toBe('unreachable');
  });

  it('a peer that is not PostgreSQL, and closes, is unreachable at once, after one attempt', async () => {
    let accepted = 0;
    const port = await listen((socket) => {
      accepted++;
      socket.resume().end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    const started = performance.now();
    await expect(probeLocal(port, 2000)).resolves.toBe('unreachable');
    // postgres.js alone reconnects at once, for ever: hundreds of connections a second, until the timeout.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(accepted).toBe(1);
  });
});
