import type { Socket } from 'node:net';
import type { AbandonedBackends } from './abandoned-backends.js';
import type { HostAddress, HostSelector } from './host-selection.js';
import {
  connectAsRead,
  connectTo,
  type DriverOptions,
  failedSocket,
  type PoolSocket,
} from './pool-socket.js';

/** How often the sockets are looked at for one that stopped answering. */
const WATCH_EVERY_MS = 250;
/** While the database cannot be reached, how often a connection is tried all the same. */
const PROBE_EVERY_MS = 250;

export type SocketsOptions = {
  /** A multi-host URL's selector: each socket goes to the host it names as writable. */
  selector?: HostSelector;
  /**
   * The pids of the pool's backends, so that those of destroyed sockets can be ended (see
   * abandoned-backends.ts); not behind a transaction pooler, whose pids are its own.
   */
  backends?: AbandonedBackends;
  /**
   * How long a socket may wait for the first byte of an answer before it counts as stopped: longer
   * than any statement its pool runs may take (its statement_timeout), so that a statement still
   * running, or waiting for a lock, is never taken for a dead peer. 0: never.
   */
  stallMs?: number;
  /**
   * Over TLS, when an answer and the next statement passed in the same look: whether that
   * statement was answered cannot be told from the byte counters, so the socket is given this long
   * (the pool's idle_timeout and a second: an idle socket is closed by the driver before then).
   */
  unsureStallMs?: number;
  /** Told of each socket destroyed because it, or the way to the database, stopped answering. */
  onStalled?: (socket: Socket) => void;
  /**
   * Told when a stall shows the way to the database cut since `since` (performance.now()), so
   * that the other pools to the same database close their idle sockets too (closeUnheardSince).
   */
  onCut?: (since: number) => void;
};

/**
 * The sockets of the pool. postgres.js has no query timeout: a connection whose peer went silent
 * keeps its pool slot until TCP gives up (minutes, or never behind some proxies). The driver is
 * given its sockets by us, so that the one that stopped answering can be destroyed, and only it:
 * the driver sees that connection close, fails what was on it (503) and connects afresh on the
 * next query. The pool, the other connections and the requests on them go on.
 *
 * A socket has stopped answering when bytes were written to it after the last bytes it read, and
 * nothing has come back for longer than any statement may run (`stallMs`). The byte counters of
 * the socket itself are read, which move under TLS too (the TLS layer writes through them). A
 * socket that waits for a lock, or for a statement still running, answers within its timeouts;
 * an idle one wrote nothing. Neither is touched.
 *
 * With a HostSelector (a multi-host URL), each socket goes to the host it names as writable, and
 * a socket's end makes it ask again (see host-selection.ts). The driver sees one host, so a
 * failed attempt fails its query at once, as with a single host, instead of looping over hosts.
 */
export class Sockets {
  private readonly open = new Set<PoolSocket>();
  private timer: NodeJS.Timeout | undefined;
  /** Since when every connection tried has failed before the server said a word; undefined: reachable. */
  private unreachableSince: number | undefined;
  private lastTryAt = 0;
  private lastAnsweredAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: SocketsOptions = {}) {}

  /**
   * postgres.js's `socket` option. Returned before it connects: the driver's first writes wait in
   * the socket, and a refused or slow connection reaches the driver as the socket's error and
   * close, as with the sockets it makes itself (its connect_timeout included).
   *
   * While the database cannot be reached (every connection since the last that was answered
   * failed without a word: refused, reset, timed out, a balancer with no primary behind it), a
   * connection is tried only every 250 ms; the others fail at once, as a refused one would. A
   * balancer may hold a connection attempt for seconds (HAProxy waits a second between its retries
   * to a server it still thinks up): requests then answer 503 at once instead of waiting on it, and
   * hold nothing meanwhile; the next try that is answered ends the wait for everyone.
   */
  readonly connect = (options: DriverOptions): Socket | Promise<Socket> => {
    const now = performance.now();
    if (this.unreachableSince !== undefined && now - this.lastTryAt < PROBE_EVERY_MS) {
      return failedSocket(
        Object.assign(new Error('the database cannot be reached; trying again shortly'), {
          code: 'ECONNREFUSED',
        }),
      );
    }
    this.lastTryAt = now;
    const { selector } = this.options;
    return selector ? this.connectToWritable(selector) : this.track(connectAsRead(options));
  };

  /** Whether connections are failing now without a word from the database (for tests and metrics). */
  get unreachable(): boolean {
    return this.unreachableSince !== undefined;
  }

  /**
   * Destroys the sockets that stopped answering; called by the watch, and by tests with their own
   * clock. A stall says the way to the database was cut when its wait began: the idle sockets that
   * have heard nothing from the database since then lead, as likely, nowhere (a failover, a
   * blackholed flow), and would each hold the next request given them for the whole stall. They
   * are closed too, which fails nothing (the driver opens a connection on its next query); the
   * sockets that wait for an answer are left to their own stall.
   */
  destroyStalled(now = performance.now()): number {
    const { stallMs = 0, unsureStallMs = stallMs } = this.options;
    if (stallMs <= 0) return 0;
    let cutSince: number | undefined;
    let destroyed = 0;
    for (const socket of this.open) {
      const silence = socket.silence(now);
      if (!silence || now - silence.since <= (silence.unsure ? unsureStallMs : stallMs)) continue;
      cutSince = Math.min(cutSince ?? silence.since, silence.since);
      this.replace(socket);
      destroyed++;
    }
    if (cutSince === undefined) return destroyed;
    this.options.onCut?.(cutSince);
    return destroyed + this.closeUnheardSince(cutSince, now);
  }

  /** Closes the idle sockets that have heard nothing from the database since `since`. */
  closeUnheardSince(since: number, now = performance.now()): number {
    let closed = 0;
    for (const socket of this.open) {
      if (socket.silence(now) || socket.heardAt >= since) continue;
      this.replace(socket);
      closed++;
    }
    return closed;
  }

  private replace(socket: PoolSocket): void {
    this.options.backends?.abandon(socket);
    socket.destroy();
    this.options.onStalled?.(socket);
  }

  /** Stops watching (the pool is closing). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
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
    const triedAt = performance.now();
    // Answered: the database is reachable again. Gone without a word: it is not, unless another
    // try begun since was answered (an attempt made during an outage may fail after its end).
    socket.once('data', () => {
      this.unreachableSince = undefined;
      this.lastAnsweredAt = performance.now();
    });
    socket.whenGone(() => {
      if (socket.bytesRead === 0 && triedAt > this.lastAnsweredAt)
        this.unreachableSince ??= performance.now();
    });
    this.options.backends?.watch(socket);
    if ((this.options.stallMs ?? 0) > 0 && !this.timer) {
      this.timer = setInterval(() => this.destroyStalled(), WATCH_EVERY_MS).unref();
    }
    return socket.whenGone(() => {
      this.open.delete(socket);
      if (this.open.size === 0) this.stop();
    });
  }
}
