import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type postgres from 'postgres';
import { describe, expect, it, vi } from 'vitest';
import { AbandonedBackends, backendPidIn } from '../../src/db/abandoned-backends.js';

/** One server message: a type byte, an int32 length counting itself, the body. */
const message = (type: string, body: Buffer) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const int32s = (...values: number[]) => {
  const buffer = Buffer.alloc(4 * values.length);
  for (const [index, value] of values.entries()) buffer.writeInt32BE(value, 4 * index);
  return buffer;
};
const authOk = message('R', int32s(0));
const parameter = message('S', Buffer.from('server_version\u000015.4\u0000', 'latin1'));
const keyData = message('K', int32s(48213, 991));
const ready = message('Z', Buffer.from('I', 'latin1'));

describe("reading a backend's pid off the startup answer", () => {
  it('finds BackendKeyData after authentication and parameters', () => {
    expect(backendPidIn(Buffer.concat([authOk, parameter, parameter, keyData, ready]))).toBe(48213);
  });

  it('waits for more while the answer is cut anywhere before the pid', () => {
    const whole = Buffer.concat([authOk, parameter, keyData]);
    for (let end = 0; end < whole.length - 4; end++)
      expect(backendPidIn(whole.subarray(0, end))).toBeUndefined();
  });

  it("skips the 'N' refusing TLS, and gives up on 'S' (TLS follows), an error, or ReadyForQuery first", () => {
    expect(backendPidIn(Buffer.concat([Buffer.from('N'), authOk, keyData]))).toBe(48213);
    expect(backendPidIn(Buffer.from('S'))).toBeNull();
    expect(
      backendPidIn(Buffer.concat([message('E', Buffer.from('SFATAL\u0000\u0000')), keyData])),
    ).toBeNull();
    expect(backendPidIn(Buffer.concat([authOk, ready, keyData]))).toBeNull();
  });
});

describe('ending the abandoned backends', () => {
  it('tries again by itself until the database answers, then stops trying', async () => {
    vi.useFakeTimers();
    try {
      const backends = new AbandonedBackends();
      const socket = new PassThrough() as unknown as Socket;
      backends.watch(socket);
      (socket as unknown as PassThrough).emit('data', Buffer.concat([authOk, keyData]));
      backends.abandon(socket);
      let destroy: (error: Error) => void = () => {};
      const answers: (() => Promise<{ ended: boolean }[]>)[] = [
        // A silent connection: no answer until a recycle destroys it.
        () =>
          new Promise((_, reject) => {
            destroy = reject;
          }),
        () => Promise.reject(new Error('connection refused')),
        () => Promise.resolve([{ ended: true }]),
      ];
      const pidsAsked: unknown[] = [];
      const sql = ((_: TemplateStringsArray, pids: unknown) => {
        pidsAsked.push(pids);
        return (answers.shift() as () => Promise<{ ended: boolean }[]>)();
      }) as unknown as postgres.Sql<Record<string, unknown>>;

      const first = backends.terminate(sql, 'app');
      await vi.advanceTimersByTimeAsync(2_000);
      expect(await first).toBe(0);
      await vi.advanceTimersByTimeAsync(3_000); // no second attempt while the first still waits
      expect(pidsAsked).toHaveLength(1);
      destroy(new Error('socket destroyed'));
      await vi.advanceTimersByTimeAsync(1_000); // the retry, refused
      await vi.advanceTimersByTimeAsync(1_000); // the next, answered
      expect(pidsAsked).toEqual([[48213], [48213], [48213]]);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(pidsAsked).toHaveLength(3);
      expect(await backends.terminate(sql, 'app')).toBe(0); // nothing left to end
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('an attempt that fails for another reason than an outage', () => {
  it('is told, so that a failure repeated at every attempt shows in the log; an outage is not', async () => {
    vi.useFakeTimers();
    try {
      const failures: unknown[] = [];
      const backends = new AbandonedBackends((error) => failures.push(error));
      const socket = new PassThrough() as unknown as Socket;
      backends.watch(socket);
      (socket as unknown as PassThrough).emit('data', Buffer.concat([authOk, keyData]));
      backends.abandon(socket);
      const bug = new TypeError('The "string" argument must be of type string');
      const answers: (() => Promise<{ ended: boolean }[]>)[] = [
        () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
        () => new Promise(() => {}), // no answer: the attempt's own time limit
        () => Promise.reject(bug),
      ];
      const sql = (() =>
        (answers.shift() as () => Promise<{ ended: boolean }[]>)()) as unknown as postgres.Sql<
        Record<string, unknown>
      >;
      await backends.terminate(sql, 'app');
      expect(failures).toEqual([]);
      await vi.advanceTimersByTimeAsync(1_000 + 2_000); // the retry, unanswered
      expect(failures).toEqual([]);
      backends.stop();
      // A fresh list (the last attempt still waits): a bug fails at once, and is told.
      const again = new AbandonedBackends((error) => failures.push(error));
      again.watch(socket);
      (socket as unknown as PassThrough).emit('data', Buffer.concat([authOk, keyData]));
      again.abandon(socket);
      await again.terminate(sql, 'app');
      again.stop();
      expect(failures).toEqual([bug]);
    } finally {
      vi.useRealTimers();
    }
  });
});
