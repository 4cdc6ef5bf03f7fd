import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

type Pair = { client: Socket; upstream?: Socket; frozen: boolean; last?: Buffer };

/** PostgreSQL's Terminate message: what a client sends when it ends a connection cleanly. */
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);

/**
 * What becomes of the sockets held during a silent outage when forwarding comes back:
 * - resume: their bytes flow again, late (a network that was only slow);
 * - destroy: they are reset (the database restarted, or a firewall dropped the flows);
 * - blackhole: they stay silent forever, only new connections work (a failover to another host:
 *   the old flows lead nowhere, and TCP takes many minutes to notice).
 */
export type StuckSockets = 'resume' | 'destroy' | 'blackhole';

/**
 * A TCP proxy in front of PostgreSQL that the test controls, to cut the database two ways:
 * `down` (every connection reset, new ones refused) and `silent` (connections accepted and kept
 * open, nothing forwarded in either direction; the bytes wait in the socket buffers).
 */
export class TcpProxy {
  mode: 'forward' | 'down' | 'silent' = 'forward';
  accepted = 0;
  /** Client connections that ended with a Terminate message, and those that just went away. */
  readonly ended = { terminated: 0, dropped: 0 };
  private readonly pairs = new Set<Pair>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  /** A proxy in front of the PostgreSQL server of a database URL. */
  static toDatabase(url: string): Promise<TcpProxy> {
    const target = new URL(url);
    return TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer({ pauseOnConnect: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the proxy has no port');
    return new TcpProxy(server, address.port, target);
  }

  /** Connections open through the proxy right now (client side). */
  get open(): number {
    return this.pairs.size;
  }

  /** The database is down: every connection is reset, and nothing listens on the port any more. */
  async down(): Promise<void> {
    this.mode = 'down';
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const pair of this.pairs) this.destroy(pair);
    await closed;
  }

  /** The database goes silent: connections stay open (new ones too), nothing is forwarded. */
  silent(): void {
    this.mode = 'silent';
    for (const pair of this.pairs) {
      pair.frozen = true;
      pair.client.pause();
      pair.upstream?.pause();
    }
  }

  /** Forwarding again for new connections; the held ones go as `stuck` says. */
  async restore(stuck: StuckSockets = 'resume'): Promise<void> {
    const wasDown = this.mode === 'down';
    this.mode = 'forward';
    if (wasDown) {
      this.server.listen(this.port, '127.0.0.1');
      await once(this.server, 'listening');
      return;
    }
    for (const pair of this.pairs) {
      if (!pair.frozen) continue;
      if (stuck === 'destroy') this.destroy(pair);
      else if (stuck === 'resume') this.thaw(pair);
    }
  }

  async close(): Promise<void> {
    this.mode = 'down';
    for (const pair of this.pairs) this.destroy(pair);
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted += 1;
    const pair: Pair = { client, frozen: this.mode !== 'forward' };
    this.pairs.add(pair);
    client.on('error', () => this.destroy(pair));
    client.on('close', () => this.destroy(pair));
    // Paused on connect: a silent database accepts the connection and then says nothing.
    if (!pair.frozen) this.link(pair);
  }

  private link(pair: Pair): void {
    const upstream = connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', () => this.destroy(pair));
    upstream.on('close', () => this.destroy(pair));
    upstream.on('data', (chunk) => pair.client.write(chunk));
    pair.client.on('data', (chunk: Buffer) => {
      pair.last = chunk;
      upstream.write(chunk);
    });
    pair.client.resume();
  }

  private thaw(pair: Pair): void {
    pair.frozen = false;
    if (!pair.upstream) {
      this.link(pair);
      return;
    }
    pair.upstream.resume();
    pair.client.resume();
  }

  private destroy(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    const clean = pair.last?.subarray(-TERMINATE.length).equals(TERMINATE) ?? false;
    this.ended[clean ? 'terminated' : 'dropped'] += 1;
    pair.client.destroy();
    pair.upstream?.destroy();
  }
}
