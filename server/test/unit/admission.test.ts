import { stat } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { Admission, type Release } from '../../src/admission/admission.js';

// What admission does with the slots of a process (docs/operations.md#overload-and-fairness),
// on a clock of the test's own: no request, no database.

const settings = { slots: 4, share: 2, writes: 1, maxWaitMs: 100, slowAfterMs: 1000 };

function clocked() {
  let now = 0;
  return { admission: new Admission(settings, () => now), advance: (ms: number) => (now += ms) };
}

const codeOf = (error: unknown) => (error as { code?: string }).code;

describe('admission', () => {
  it('lets a tenant alone use every slot: the share holds only while others wait', async () => {
    const { admission } = clocked();
    const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
    expect(admission.usage().inFlight).toBe(4);
    for (const release of held) release();
  });

  it('gives a freed slot to the tenant under its share before the one over it', async () => {
    const { admission } = clocked();
    const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
    const order: string[] = [];
    const noted = (name: string) => (release: Release) => {
      order.push(name);
      return release;
    };
    const waiting = [
      admission.acquire('tenant:a', 'read').then(noted('a')),
      admission.acquire('tenant:b', 'read').then(noted('b')),
    ];
    // a holds 4 of 4 slots, twice its share: the first slot freed goes to b, though a asked first.
    held[0]?.();
    await waiting[1];
    expect(order).toEqual(['b']);
    // b no longer waits: a, alone again, may take the next slot beyond its share.
    held[1]?.();
    await waiting[0];
    expect(order).toEqual(['b', 'a']);
    for (const release of [...held.slice(2), ...(await Promise.all(waiting))]) release();
    expect(admission.usage()).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('holds a tenant to its writes: refused TENANT_BUSY once its queue would not drain in time', async () => {
    const { admission } = clocked();
    const held = await admission.acquire('tenant:a', 'write');
    // One write at a time for a tenant, ~5 ms each: about 20 queued is a wait past maxWaitMs.
    const queued: Promise<Release>[] = [];
    let refused: unknown;
    while (refused === undefined && queued.length < 100) {
      const next = admission.acquire('tenant:a', 'write');
      const outcome = await Promise.race([
        next.then(
          () => 'granted',
          (e: unknown) => e,
        ),
        new Promise((r) => setImmediate(r, 'waits')),
      ]);
      if (outcome === 'waits') queued.push(next);
      else refused = outcome;
    }
    expect(codeOf(refused)).toBe('TENANT_BUSY');
    expect(queued.length).toBeGreaterThan(10);
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Another tenant's write is not held up by it, and neither are a's reads.
    (await admission.acquire('tenant:b', 'write'))();
    (await admission.acquire('tenant:a', 'read'))();
    held();
    for (const q of queued) (await q)();
    expect(admission.usage()).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('refuses 503 SERVICE_UNAVAILABLE, not 429, when the work in the slots waits on the database', async () => {
    const { admission, advance } = clocked();
    const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
    advance(1500);
    const refused = admission.refusalNow('tenant:b', 'read');
    expect(codeOf(refused)).toBe('SERVICE_UNAVAILABLE');
    for (const release of held) release();
  });

  it('after a deadline, refuses at once with 503 what would wait, for a while', async () => {
    const { admission, advance } = clocked();
    admission.noteDeadline();
    const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
    expect(codeOf(admission.refusalNow('tenant:b', 'read'))).toBe('SERVICE_UNAVAILABLE');
    advance(6000);
    for (const release of held) release();
    expect(admission.refusalNow('tenant:b', 'read')).toBeUndefined();
  });

  it('after a deadline, work begun since and answered in time ends the refusals at once', async () => {
    const { admission, advance } = clocked();
    const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
    advance(10);
    admission.noteDeadline();
    advance(5);
    // Answered, but asked before the deadline: it says nothing of the database since.
    held[0]?.(true);
    held[0] = await admission.acquire('tenant:a', 'read');
    expect(codeOf(admission.refusalNow('tenant:b', 'read'))).toBe('SERVICE_UNAVAILABLE');
    advance(5);
    // Asked after it, and failed (a connection refused): still nothing.
    held[1]?.(false);
    held[1] = await admission.acquire('tenant:a', 'read');
    expect(codeOf(admission.refusalNow('tenant:b', 'read'))).toBe('SERVICE_UNAVAILABLE');
    // Asked after it and answered in 5 ms: the wait is the queue's again, not the database's.
    held[0]?.(true);
    held[0] = await admission.acquire('tenant:a', 'read');
    expect(admission.refusalNow('tenant:b', 'read')).toBeUndefined();
    for (const release of held) release();
  });

  it('goes on refusing 503 while a grant is held long, though other work is answered in time', async () => {
    const { admission, advance } = clocked();
    // A write held by a session the outage left behind (its tenant's lock): what queues behind it
    // waits on the database, not on its tenant.
    const stuck = await admission.acquire('tenant:a', 'write');
    const held = await Promise.all([1, 2, 3].map(() => admission.acquire('tenant:b', 'read')));
    advance(1500);
    held[0]?.();
    held[0] = await admission.acquire('tenant:b', 'read');
    advance(5);
    held[0]?.(true);
    held[0] = await admission.acquire('tenant:b', 'read');
    expect(codeOf(admission.refusalNow('tenant:c', 'read'))).toBe('SERVICE_UNAVAILABLE');
    stuck();
    for (const release of held) release();
    expect(admission.usage()).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('does not learn from work held while the database did not answer: its pace is back at once', async () => {
    const { admission, advance } = clocked();
    const stuck = await admission.acquire('tenant:a', 'write');
    advance(1500);
    stuck();
    // A write held, five queued behind it: at the tenant's own pace (~5 ms each) they wait well
    // inside maxWaitMs; had the 1.5 s been learnt, the second would be refused TENANT_BUSY.
    const held = await admission.acquire('tenant:a', 'write');
    const queued = [1, 2, 3, 4, 5].map(() => admission.acquire('tenant:a', 'write'));
    const outcomes = await Promise.race([
      Promise.allSettled(queued),
      new Promise((r) => setImmediate(r, 'all wait')),
    ]);
    expect(outcomes).toBe('all wait');
    held();
    for (const q of queued) (await q)();
    expect(admission.usage()).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('gives a waiter whose time is up the slot an answer already in has freed, after a held event loop', async () => {
    // Real time: what is tested is the order of the event loop's phases. The loop is held (a long
    // collection, a busy machine) past the waiter's longest wait while the answer that frees a
    // slot comes in; on the next turn, timers run before that I/O is read.
    const admission = new Admission({ ...settings, maxWaitMs: 20 });
    const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
    const waiting = admission.acquire('tenant:b', 'read');
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        stat(import.meta.filename, () => held[0]?.());
        const until = performance.now() + 60;
        while (performance.now() < until) {
          // the event loop held
        }
        resolve();
      }),
    );
    const granted = await waiting;
    granted();
    for (const release of held.slice(1)) release();
    expect(admission.usage()).toEqual({ inFlight: 0, queued: 0, keys: 0 });
  });

  it('still refuses a waiter whose time is up when no slot frees', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { admission } = clocked();
      const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
      const outcome = admission.acquire('tenant:b', 'read').then(
        () => 'granted',
        (error: unknown) => codeOf(error),
      );
      await vi.advanceTimersByTimeAsync(settings.maxWaitMs - 1);
      expect(admission.usage().queued).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(await outcome).toBe('SERVICE_OVERLOADED');
      for (const release of held) release();
      expect(admission.usage()).toEqual({ inFlight: 0, queued: 0, keys: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets a request that ends while it waits leave the queue', async () => {
    const { admission } = clocked();
    const held = await Promise.all([1, 2, 3, 4].map(() => admission.acquire('tenant:a', 'read')));
    const listeners: (() => void)[] = [];
    const waiting = admission.acquire('tenant:b', 'read', { onEnd: (l) => listeners.push(l) });
    expect(admission.usage().queued).toBe(1);
    for (const l of listeners) l();
    await expect(waiting).rejects.toBeDefined();
    expect(admission.usage().queued).toBe(0);
    for (const release of held) release();
  });
});
