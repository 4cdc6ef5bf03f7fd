import { Socket } from 'node:net';
import type { AbandonedBackends } from './abandoned-backends.js';
import type { HostAddress, HostSelector } from './host-selection.js';

/** What postgres.js passes to its `socket` option: its own reading of the URL. */
type DriverOptions = { host: string[]; port: number[]; path?: string };

/** At most one recycling this often, so that an outage does not churn connections. */
const RECYCLE_INTERVAL_MS = 5000;

/**
 * The sockets of the pool. postgres.js has no query timeout: a connection whose peer went silent
 * keeps its pool slot until TCP gives up (minutes, or never behind some proxies). The driver is
 * given its sockets by us, so that `destroyAll` can destroy them: the driver sees its connections
 * close, fails what was on them (503) and connects afresh on the next query. The pool, and the
 * database handle, stay the same.
 *
 * With a HostSelector (a multi-host URL), each socket goes to the host it names as writable, and
 * a socket's end makes it ask again (see host-selection.ts). The driver sees one host, so a
 * failed attempt fails its query at once, as with a single host, instead of looping over hosts.
 */
export class Sockets {
  private readonly open = new Set<Socket>();
  private recycledAt = 0;

  /**
   * `backends`: the pids of the pool's backends, so that those of destroyed sockets can be ended
   * (see abandoned-backends.ts); not behind a transaction pooler, whose pids are its own.
   */
  constructor(
    private readonly selector?: HostSelector,
    private readonly backends?: AbandonedBackends,
  ) {}

  /**
   * postgres.js's `socket` option. Returned before it connects: the driver's first writes wait in
   * the socket, and a refused or slow connection reaches the driver as the socket's error and
   * close, as with the sockets it makes itself (its connect_timeout included).
   */
  readonly connect = (options: DriverOptions): Socket | Promise<Socket> => {
    return this.selector ? this.connectToWritable(this.selector) : this.track(connectAsRead(options));
  };

  /** Destroys every connection, those stuck on a silent peer included; at most once every few seconds. */
  destroyAll(): boolean {
    if (Date.now() - this.recycledAt < RECYCLE_INTERVAL_MS) return false;
    this.recycledAt = Date.now();
    for (const socket of this.open) {
      this.backends?.abandon(socket);
      socket.destroy();
    }
    return true;
  }

  private async connectToWritable(selector: HostSelector): Promise<Socket> {
    let address: HostAddress;
    try {
      address = await selector.writableHost();
    } catch (error) {
      return failedSocket(error as Error);
    }
    // Refused, timed out, ended by the server (a restart, a failover, pg_terminate_backend), or
    // left by the driver because the node is a standby (its target_session_attrs check): the
    // next connection asks which host is writable.
    return this.track(connectTo(address).whenGone(() => selector.forget(address)));
  }

  private track(socket: PoolSocket): PoolSocket {
    this.open.add(socket);
    this.backends?.watch(socket);
    return socket.whenGone(() => this.open.delete(socket));
  }
}

/**
 * A socket that runs hooks when it is destroyed, however it ends. Not on 'close' listeners: to
 * wrap a socket in TLS, postgres.js removes all its listeners (`removeAllListeners()`), and a TLS
 * connection's end then destroys the socket under it without a 'close' listener of ours left.
 */
class PoolSocket extends Socket {
  private readonly gone: (() => void)[] = [];

  whenGone(hook: () => void): this {
    if (this.destroyed) hook();
    else this.gone.push(hook);
    return this;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    for (const hook of this.gone.splice(0)) hook();
    super._destroy(error, callback);
  }
}

/** A socket to the host (or Unix socket path) of a single-host URL, as the driver read it. */
function connectAsRead(options: DriverOptions): PoolSocket {
  const address = { host: options.host[0] as string, port: options.port[0] as number };
  if (!options.path) return connectTo(address);
  return speaksFirst(Object.assign(new PoolSocket().connect(options.path), address));
}

/** A socket to `address`, with the guard below. */
export function connectTo(address: HostAddress): PoolSocket {
  // host and port are read by the driver for TLS (servername) and in its errors.
  return speaksFirst(Object.assign(new PoolSocket().connect(address.port, address.host), address));
}

/**
 * A peer that ends the connection before sending a single byte is not a PostgreSQL server
 * refusing us (that one says why: an ErrorResponse, or its answer to SSLRequest) but a balancer or
 * proxy with no backend behind it. postgres.js would connect again at once, for ever, while the
 * query waits (until the request's deadline); as an error, the driver fails the query (a 503).
 */
function speaksFirst(socket: PoolSocket): PoolSocket {
  socket.once('end', () => {
    if (socket.bytesRead > 0) return;
    socket.destroy(
      Object.assign(new Error('closed by the server before it answered'), { code: 'ECONNRESET' }),
    );
  });
  return socket;
}

/**
 * A socket that fails with `error` as a refused connection would: the driver rejects the query
 * that asked for the connection (a 503), and puts the connection back among the closed ones. A
 * throw would be worse: postgres.js would keep that connection "connecting" for ever, one pool
 * slot lost each time. Destroyed on the next turn, after the driver (which awaits the factory) has
 * attached its listeners, and before its first write is flushed (a later setImmediate).
 */
export function failedSocket(error: Error): Socket {
  const socket = new Socket();
  setImmediate(() => socket.destroy(error));
  return socket;
}
