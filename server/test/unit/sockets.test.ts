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
    const sockets = new Sockets(selector);
    const socket = await sockets.connect(driverOptions);
    const closed = settled(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    expect(socket).toMatchObject({ host: '127.0.0.1', port: address.port });
    expect(probes).toBe(1);
    // The server ends the session (pg_terminate_backend, a restart, a failover).
    while (accepted.length === 0) await new Promise((resolve) => setImmediate(resolve));
    accepted[0]?.destroy();
    await closed;
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
    const sockets = new Sockets(selector);
    const socket = await sockets.connect(driverOptions);
    await new Promise((resolve) => socket.once('connect', resolve));
    // What postgres.js does before tls.connect({ socket }); the TLS socket's end destroys this one.
    socket.removeAllListeners();
    socket.destroy();
    (await sockets.connect(driverOptions)).destroy();
    expect(probes).toBe(2);
  });

  it('without a writable host, fail like a refused connection, after the driver listens', async () => {
    const selector = new HostSelector(
      [{ host: '127.0.0.1', port: 1 }],
      async (): Promise<HostRole> => 'read-only',
    );
    const socket = await new Sockets(selector).connect(driverOptions);
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

  it('with one host, connect to it as the driver read it, and destroy them all on recycle', async () => {
    const { address } = await listen();
    const sockets = new Sockets();
    const socket = sockets.connect({ host: [address.host], port: [address.port] }) as Socket;
    const closed = settled(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    expect(sockets.destroyAll()).toBe(true);
    await closed;
    expect(sockets.destroyAll()).toBe(false);
  });
});
