import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Request, Response } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { requestDeadline } from '../../src/http/request-deadline.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;

/** The parts of a request and its response the deadline touches. */
const exchange = () => ({
  req: {} as IncomingMessage,
  res: Object.assign(new EventEmitter(), { headersSent: false, writableEnded: false, setHeader() {} }),
});

describe('the request deadline', () => {
  // Under load a scavenge comes every ~100 ms. What keeps an answered request alive past it is
  // copied, then promoted, then left to a full collection: a WeakMap keyed by the response whose
  // value reached it did that to every request (V8's scavenger holds WeakMap values strongly).
  it('lets an answered request go at the next scavenge', () => {
    const deadline = requestDeadline(60_000);
    const oldSpace = () =>
      getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    const before = oldSpace();
    // 40 requests of 32 KB each, answered one after the other, as a server under load answers them.
    const requests = 40;
    const perRequest = 4000 * 8;
    for (let i = 0; i < requests; i++) {
      const { req, res } = exchange();
      Object.assign(res, { payload: new Array(perRequest / 8).fill(i) });
      deadline(req as Request, res as unknown as Response, () => {});
      res.emit('close');
    }
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    const promoted = oldSpace() - before;
    expect(promoted, 'bytes moved to the old generation by two scavenges').toBeLessThan(
      (requests * perRequest) / 4,
    );
  });

  it('answers 503 once the time is up, and stops when the request is answered', () => {
    vi.useFakeTimers();
    try {
      const calls: unknown[] = [];
      const deadline = requestDeadline(5);
      const late = exchange();
      deadline(late.req as Request, late.res as unknown as Response, (error?: unknown) => calls.push(error));
      const answered = exchange();
      deadline(answered.req as Request, answered.res as unknown as Response, (error?: unknown) =>
        calls.push(error),
      );
      answered.res.emit('close');
      vi.advanceTimersByTime(5);
      expect(calls.map((call) => (call as Error | undefined)?.constructor.name)).toEqual([
        undefined,
        undefined,
        'ServiceUnavailableError',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
