import { ServiceOverloadedError, ServiceUnavailableError, TenantBusyError } from '../errors/index.js';
import type { AdmissionSettings } from './admission-settings.js';
import { DatabasePace } from './database-pace.js';

export type Work = 'read' | 'write';

/**
 * Given back when the request is done with the database (its answer sent, or the client gone).
 * `answered`: the work succeeded, so the database answered it, which tells that it answers again
 * after an outage.
 */
export type Release = (answered?: boolean) => void;

type Waiter = {
  key: KeyState;
  work: Work;
  enqueuedAt: number;
  grant: (release: Release) => void;
  refuse: (error: Error) => void;
  timer: NodeJS.Timeout;
};

type KeyState = {
  name: string;
  inFlight: number;
  writes: number;
  reads: Waiter[];
  pendingWrites: Waiter[];
  /** Milliseconds a grant of this key is held, smoothed, per kind of work: how fast its queue drains. */
  heldMs: Record<Work, number>;
};

/** A waiter whose request ended (answered by its deadline, or its client gone). */
const GONE = Symbol('gone');

/** Smoothing of the times held: the last ~10 grants weigh most. */
const ALPHA = 0.1;
const INITIAL_HELD_MS = 5;

export class Admission {
  private inFlight = 0;
  private readonly keys = new Map<string, KeyState>();
  /** Keys with waiters, served in turn: one grant each before any key gets a second. */
  private readonly turns: KeyState[] = [];
  private heldMs = INITIAL_HELD_MS;
  private readonly database: DatabasePace;

  constructor(
    private readonly settings: AdmissionSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.database = new DatabasePace(settings.slowAfterMs, now);
  }

  /**
   * Waits for a slot for `key`, or refuses. `end`: the request's end (its deadline, or the client
   * gone): a request nobody waits for any more leaves the queue.
   */
  acquire(name: string, work: Work, end?: { onEnd(listener: () => void): void }): Promise<Release> {
    const key = this.keyOf(name);
    if (this.queueOf(key, work).length === 0 && this.mayStart(key, work)) {
      return Promise.resolve(this.start(key, work));
    }
    const refusal = this.refusalOnArrival(key, work);
    if (refusal) {
      this.forget(key);
      return Promise.reject(refusal);
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        key,
        work,
        enqueuedAt: this.now(),
        grant: resolve,
        refuse: reject,
        timer: setTimeout(() => this.expire(waiter), this.settings.maxWaitMs),
      };
      this.queueOf(key, work).push(waiter);
      if (!this.turns.includes(key)) this.turns.push(key);
      // Gone before its turn: nobody reads the refusal, but the queue must not keep it.
      end?.onEnd(() => this.drop(waiter, GONE));
    });
  }

  /**
   * The refusal a request of `key` would get now, without joining the queue: asked before any
   * work is spent on the request (a statement, its body), so that excess load costs little more
   * than its refusal.
   */
  refusalNow(name: string, work: Work): Error | undefined {
    const key = this.keys.get(name) ?? this.keyOf(name);
    try {
      if (this.queueOf(key, work).length === 0 && this.mayStart(key, work)) return undefined;
      return this.refusalOnArrival(key, work);
    } finally {
      this.forget(key);
    }
  }

  /** A request reached its deadline: the database is slow to answer, or not answering. */
  noteDeadline(): void {
    this.database.noteDeadline();
  }

  /** For metrics and tests: what is held and what waits. */
  usage(): { inFlight: number; queued: number; keys: number } {
    let queued = 0;
    for (const key of this.turns) queued += key.reads.length + key.pendingWrites.length;
    return { inFlight: this.inFlight, queued, keys: this.keys.size };
  }

  private keyOf(name: string): KeyState {
    let key = this.keys.get(name);
    if (!key) {
      const heldMs = { read: this.heldMs, write: this.heldMs };
      key = { name, inFlight: 0, writes: 0, reads: [], pendingWrites: [], heldMs };
      this.keys.set(name, key);
    }
    return key;
  }

  private queueOf(key: KeyState, work: Work): Waiter[] {
    return work === 'write' ? key.pendingWrites : key.reads;
  }

  private mayStart(key: KeyState, work: Work): boolean {
    return this.inFlight < this.settings.slots && !this.keyIsFull(key, work);
  }

  /**
   * The key holds its share while others wait (or, for a write, its tenant's writes): it waits for
   * its own grants. Alone, a key may use every slot: the share is what it keeps from others, not a
   * cap on an idle process.
   */
  private keyIsFull(key: KeyState, work: Work): boolean {
    if (work === 'write' && key.writes >= this.settings.writes) return true;
    return key.inFlight >= this.settings.share && this.othersWait(key);
  }

  private othersWait(key: KeyState): boolean {
    for (const other of this.turns) if (other !== key) return true;
    return false;
  }

  /** How many of the key's grants of this kind can run side by side. */
  private parallelOf(work: Work): number {
    return work === 'write' ? Math.min(this.settings.writes, this.settings.share) : this.settings.share;
  }

  private start(key: KeyState, work: Work): Release {
    this.inFlight++;
    key.inFlight++;
    if (work === 'write') key.writes++;
    const end = this.database.hold();
    let released = false;
    return (answered = false) => {
      if (released) return;
      released = true;
      const held = end(answered);
      if (!this.database.measuresOutage(held)) {
        key.heldMs[work] += ALPHA * (held - key.heldMs[work]);
        this.heldMs += ALPHA * (held - this.heldMs);
      }
      this.inFlight--;
      key.inFlight--;
      if (work === 'write') key.writes--;
      this.dispatch();
      this.forget(key);
    };
  }

  /** Milliseconds until the key's queue of this kind drains, with one more in it. */
  private keyWaitMs(key: KeyState, work: Work): number {
    return ((this.queueOf(key, work).length + 1) * key.heldMs[work]) / this.parallelOf(work);
  }

  /**
   * Milliseconds until a slot of the process frees for one more request, counting the waiters
   * that wait for the process (not those that wait for their own key's grants).
   */
  private processWaitMs(): number {
    if (this.inFlight < this.settings.slots) return 0;
    let waiting = 0;
    for (const key of this.turns) {
      if (!this.keyIsFull(key, 'read')) waiting += key.reads.length;
      if (!this.keyIsFull(key, 'write')) waiting += key.pendingWrites.length;
    }
    return ((waiting + 1) * this.heldMs) / this.settings.slots;
  }

  /**
   * Refused at once when the queue ahead would not drain within the longest wait: a request that
   * would be refused after waiting is better refused now, and holds nothing meanwhile.
   */
  private refusalOnArrival(key: KeyState, work: Work): Error | undefined {
    const { maxWaitMs } = this.settings;
    // The work ahead waits on a database that does not answer: waiting behind it would not help.
    if (this.database.slow()) return this.refusalFor(key, work);
    if (this.keyIsFull(key, work) && this.keyWaitMs(key, work) > maxWaitMs) return this.refusalFor(key, work);
    if (this.processWaitMs() > maxWaitMs) return this.refusalFor(key, work);
    return undefined;
  }

  /** Whose fault the wait is: the database's (503), the key's own share (429), or the whole process's (503). */
  private refusalFor(key: KeyState, work: Work): Error {
    const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
    if (this.database.slow()) {
      return new ServiceUnavailableError('The database is not answering in time; try again shortly');
    }
    if (this.keyIsFull(key, work)) return new TenantBusyError(seconds(this.keyWaitMs(key, work)));
    return new ServiceOverloadedError(seconds(this.processWaitMs()));
  }

  /**
   * The waiter's longest wait is over: refused, unless a slot is given to it first by the answers
   * already in. After the event loop was held (a long collection, a busy machine), timers run
   * before the I/O that came in meanwhile: refused at once, a waiter would be turned away for a
   * slot that an answer waiting to be read has freed. `setImmediate` runs after that I/O.
   */
  private expire(waiter: Waiter): void {
    setImmediate(() => this.drop(waiter, this.refusalFor(waiter.key, waiter.work)));
  }

  private drop(waiter: Waiter, error: Error | typeof GONE): void {
    const queue = this.queueOf(waiter.key, waiter.work);
    const at = queue.indexOf(waiter);
    if (at < 0) return;
    queue.splice(at, 1);
    clearTimeout(waiter.timer);
    waiter.refuse(error === GONE ? new ServiceUnavailableError('The request ended before its turn') : error);
    this.forget(waiter.key);
  }

  /** Grants freed slots to the keys that wait, one each in turn, until a round grants nothing. */
  private dispatch(): void {
    let idle = 0;
    while (this.inFlight < this.settings.slots && this.turns.length > 0 && idle < this.turns.length) {
      const key = this.turns.shift() as KeyState;
      const waiter = this.nextOf(key);
      if (waiter) {
        this.queueOf(key, waiter.work).shift();
        clearTimeout(waiter.timer);
        waiter.grant(this.start(key, waiter.work));
        idle = 0;
      } else {
        idle++;
      }
      if (key.reads.length > 0 || key.pendingWrites.length > 0) this.turns.push(key);
    }
  }

  /** The key's next waiter that may start now: the older of its first read and first write. */
  private nextOf(key: KeyState): Waiter | undefined {
    const read = key.reads[0] && this.mayStart(key, 'read') ? key.reads[0] : undefined;
    const write = key.pendingWrites[0] && this.mayStart(key, 'write') ? key.pendingWrites[0] : undefined;
    if (read && write) return read.enqueuedAt <= write.enqueuedAt ? read : write;
    return read ?? write;
  }

  /** A key with nothing held or waiting is forgotten: keys are tenants and callers, unbounded. */
  private forget(key: KeyState): void {
    if (key.inFlight === 0 && key.reads.length === 0 && key.pendingWrites.length === 0) {
      this.keys.delete(key.name);
      const turn = this.turns.indexOf(key);
      if (turn >= 0) this.turns.splice(turn, 1);
    }
  }
}
