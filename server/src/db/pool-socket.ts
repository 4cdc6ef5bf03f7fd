import { Socket } from 'node:net';
import type { HostAddress } from './host-selection.js';

/** What postgres.js passes to its `socket` option: its own reading of the URL. */
export type DriverOptions = { host: string[]; port: number[]; path?: string };

/**
 * A socket that knows since when it waits for an answer, and runs hooks when it is destroyed,
 * however it ends.
 *
 * In the clear, the driver writes to it and listens to it: the wait starts at the first write
 * after the last bytes read, and ends with the next bytes read. To wrap it in TLS, postgres.js
 * removes all its listeners (`removeAllListeners()`) and hands it to `tls.connect`, whose layer
 * then reads and writes its handle directly, past these methods; from then on the wait is read
 * off the socket's byte counters, each time the watch looks (see silence()). For the same reason
 * the hooks do not hang on 'close' listeners: a TLS connection's end destroys the socket under it
 * without a 'close' listener of ours left.
 */
export class PoolSocket extends Socket {
  private readonly gone: (() => void)[] = [];
  private encrypted = false;
  private waitingSince: number | undefined;
  /** When the database was last heard from on it (or, before it said a word, when it was opened). */
  heardAt = performance.now();
  /** Counter mode (TLS): the counters at the last look, and whether the wait's start is unsure. */
  private seen = { read: 0, written: 0 };
  private unsure = false;

  constructor() {
    super();
    this.on('data', this.answered);
  }

  whenGone(hook: () => void): this {
    if (this.destroyed) hook();
    else this.gone.push(hook);
    return this;
  }

  override _write(chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writing();
    super._write(chunk, encoding, callback);
  }

  override _writev(
    chunks: { chunk: unknown; encoding: BufferEncoding }[],
    callback: (error?: Error | null) => void,
  ): void {
    this.writing();
    super._writev?.(chunks, callback);
  }

  override removeAllListeners(event?: string | symbol): this {
    // postgres.js does this only to hand the socket to TLS.
    if (event === undefined) this.encrypted = true;
    return super.removeAllListeners(event);
  }

  /** Since when it has waited for an answer, as of `now`; undefined when it waits for none. */
  silence(now: number): { since: number; unsure: boolean } | undefined {
    if (this.encrypted) this.look(now);
    return this.waitingSince === undefined ? undefined : { since: this.waitingSince, unsure: this.unsure };
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    for (const hook of this.gone.splice(0)) hook();
    super._destroy(error, callback);
  }

  private readonly answered = () => {
    this.waitingSince = undefined;
    this.heardAt = performance.now();
  };

  private writing(): void {
    if (!this.encrypted) this.waitingSince ??= performance.now();
  }

  /**
   * Bytes read since the last look end the wait, unless bytes were written too: which came first
   * cannot be told, so the wait may have begun (unsure). Bytes written alone begin one.
   */
  private look(now: number): void {
    const read = this.bytesRead;
    const written = this.bytesWritten;
    const readMore = read !== this.seen.read;
    const wroteMore = written !== this.seen.written;
    this.seen = { read, written };
    if (readMore) this.heardAt = now;
    if (readMore && wroteMore) {
      this.waitingSince = now;
      this.unsure = true;
    } else if (readMore) {
      this.waitingSince = undefined;
    } else if (wroteMore && (this.waitingSince === undefined || this.unsure)) {
      // A statement after an unsure wait: if that one was answered, this is when the wait began.
      this.waitingSince = now;
      this.unsure = false;
    }
  }
}

/** A socket to the host (or Unix socket path) of a single-host URL, as the driver read it. */
export function connectAsRead(options: DriverOptions): PoolSocket {
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
