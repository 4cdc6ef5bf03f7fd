import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';

/** A database whose every query waits forever: a server that accepted the connection, then went silent. */
const silent: Database = new Proxy(() => {}, {
  get: (_target, property) => (property === 'then' ? () => {} : silent),
  apply: () => silent,
}) as unknown as Database;

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer({
    database: { db: silent, kind: 'postgres', close: async () => {} },
    requestTimeoutMs: 500,
  });
});
afterAll(() => h?.close());

describe('a database that never answers', () => {
  it('turns every request into 503 SERVICE_UNAVAILABLE at the deadline, and none hangs', async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${h.baseUrl}/me`, { headers: { authorization: 'Bearer x.y.z' } }),
      ),
    );
    const elapsed = Date.now() - started;
    // The malformed token is refused before any query; a well-formed one waits on the database.
    expect(answers.every((res) => res.status === 401)).toBe(true);
    const token = await h.token('someone');
    const waiting = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${h.baseUrl}/me`, { headers: { authorization: `Bearer ${token}` } }),
      ),
    );
    for (const res of waiting) {
      expect(res.status).toBe(503);
      expect((await jsonOf(res)).error.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect(Date.now() - started - elapsed).toBeLessThan(3000);
  });

  it('keeps /health/live at 200 and reports not ready within its 1 s limit', async () => {
    expect((await fetch(`${h.baseUrl}/health/live`)).status).toBe(200);
    const started = Date.now();
    const ready = await fetch(`${h.baseUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
