import type { Socket } from 'node:net';
import type postgres from 'postgres';
import { isDatabaseUnavailable } from './db-errors.js';

/**
 * The backends a destroyed connection leaves behind. Destroying a socket ends our side only. If
 * the network went silent in the middle of a message (a partition, a flow blackholed by a
 * failover), the backend waits in ClientRead for the rest of that statement, holding its
 * transaction's locks (a tenant's row), and no timeout applies: statement_timeout starts when the
 * statement runs, idle_in_transaction_session_timeout only between messages, and a live middlebox
 * answers TCP keepalives. Seen in the outage test: a backend 'active' in ClientRead for minutes
 * with a tenant's lock, every write of the tenant timing out behind it.
 *
 * So each socket remembers its backend's pid (BackendKeyData, read off the startup answer), and
 * after the pool is recycled the service asks the database to end the backends it abandoned.
 * Not behind a transaction pooler (the pid would be the pooler's), nor over TLS (the answer is
 * encrypted): there the database's own TCP timeouts end them, later.
 */
/** An attempt that waited ATTEMPT_MS: the database is out of reach, as a refused connection says. */
const NO_ANSWER = new Error('no answer');

/** How long one attempt to end them may wait, and how long until the next when it failed. */
const ATTEMPT_MS = 2_000;
const RETRY_MS = 1_000;

export class AbandonedBackends {
  private readonly pids = new WeakMap<Socket, number>();
  private abandoned: { pid: number; at: Date }[] = [];
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  /**
   * `onFailure`: told of an attempt that failed for another reason than a database out of reach
   * (which is retried quietly): such a failure repeats at every attempt, and only a log shows it.
   */
  constructor(private readonly onFailure: (error: unknown) => void = () => {}) {}
  private pending = false;

  /** Reads the backend's pid off a new socket's startup answer (plain TCP only). */
  watch(socket: Socket): void {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const found = backendPidIn(buffered);
      if (found !== undefined) {
        socket.off('data', onData);
        if (found !== null) this.pids.set(socket, found);
      }
    };
    socket.on('data', onData);
  }

  /** The socket is being destroyed: its backend, if known, is to be ended. */
  abandon(socket: Socket): void {
    const pid = this.pids.get(socket);
    // A bounded list: a long outage with many recyclings must not grow it without end.
    if (pid !== undefined && this.abandoned.length < 1000) this.abandoned.push({ pid, at: new Date() });
  }

  /**
   * Ends the abandoned backends that still exist. Only this service's (application_name) and only
   * those started before we gave them up, so that a pid the database has since given to another
   * backend is left alone. Kept for the next call if the database cannot be reached yet.
   */
  async terminate(sql: postgres.Sql<Record<string, unknown>>, applicationName: string): Promise<number> {
    if (this.abandoned.length === 0 || this.stopped) return 0;
    // The last attempt still waits on a silent connection: one at a time, not a pile of them.
    if (this.pending) {
      this.retryLater(sql, applicationName);
      return 0;
    }
    const batch = this.abandoned;
    this.abandoned = [];
    let timer: NodeJS.Timeout | undefined;
    try {
      // As text: drizzle, which wraps the same pool, leaves timestamps unserialised (a Date fails).
      const latest = new Date(Math.max(...batch.map((entry) => entry.at.getTime()))).toISOString();
      const query = sql<{ ended: boolean }[]>`
        select pg_terminate_backend(pid) as ended from pg_stat_activity
        where pid = any(${batch.map((entry) => entry.pid)}::int[])
          and application_name = ${applicationName} and backend_start < ${latest}::timestamptz`;
      // A connection of a silent network would hold the attempt (and the locks) forever.
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(NO_ANSWER), ATTEMPT_MS);
      });
      this.pending = true;
      void query
        .then(
          () => {},
          () => {},
        )
        .finally(() => {
          this.pending = false;
        });
      const rows = await Promise.race([query, timeout]);
      return rows.filter((row) => row.ended).length;
    } catch (error) {
      if (error !== NO_ANSWER && !isDatabaseUnavailable(error)) this.onFailure(error);
      this.abandoned.push(...batch.slice(0, 1000 - this.abandoned.length));
      // Tried again on its own: once the database is back, nothing else may recycle the pool
      // (a write blocked by such a backend ends at lock_timeout, before the request's deadline).
      this.retryLater(sql, applicationName);
      return 0;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The pool is closing: no more attempts. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
  }

  private retryLater(sql: postgres.Sql<Record<string, unknown>>, applicationName: string): void {
    if (this.retry || this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.terminate(sql, applicationName);
    }, RETRY_MS).unref();
  }
}

/**
 * The pid in a server's startup answer: messages of a type byte and an int32 length (itself
 * included), BackendKeyData ('K') holding the pid. undefined: not there yet; null: never will be
 * (TLS accepted, an error, or ReadyForQuery without it).
 */
export function backendPidIn(data: Buffer): number | null | undefined {
  let offset = 0;
  // The answer to an SSLRequest is one byte: 'S' (TLS follows: unreadable here) or 'N'. A plain
  // startup answer begins with 'R' (authentication), never 'S'.
  if (data[0] === 0x53) return null;
  if (data[0] === 0x4e) offset = 1;
  while (offset + 5 <= data.length) {
    const type = data[offset];
    const length = data.readInt32BE(offset + 1);
    if (length < 4) return null;
    if (type === 0x4b) return offset + 9 <= data.length ? data.readInt32BE(offset + 5) : undefined;
    if (type === 0x5a || type === 0x45) return null;
    offset += 1 + length;
  }
  return undefined;
}
