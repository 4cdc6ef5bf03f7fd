import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { createSuperAdmin, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';

// Found by database-outage.test.ts: a request answered 503 at its deadline keeps running, and when
// the database answers at last, express's final handler destroys that request's socket. With
// keep-alive, the socket carries the client's next request by then, which died with it.
const DEADLINE_MS = 800;

type Outcome = { status?: number; connection?: string; error?: string; socketPort?: number };

function post(agent: Agent, url: URL, path: string, token: string, body: unknown): Promise<Outcome> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = request(
      new URL(path, url),
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const socketPort = res.socket?.localPort;
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode, connection: res.headers.connection, socketPort }),
        );
      },
    );
    req.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    req.end(payload);
  });
}

let database: RelDatabase;
let handle: DatabaseHandle;
let h: TestServer;
beforeAll(async () => {
  if (!postgresUrl()) return;
  database = await createRelDatabase();
  handle = await openDatabase({ kind: 'postgres', url: database.url, poolSize: 4 });
  h = await startTestServer({ database: handle, requestTimeoutMs: DEADLINE_MS });
});
afterAll(async () => {
  await h?.close();
  await handle?.close();
  await database?.drop();
});

describe.skipIf(!postgresUrl())('a request answered 503 at its deadline that finishes later', () => {
  it('closes its connection, so that its late end cannot take the next request down with it', async () => {
    const admin = await createSuperAdmin(h);
    const tenant = await createTenantFixture(h);
    const url = new URL(h.baseUrl);
    const path = `/tenants/${tenant.tenantId}/memberships`;
    // Every membership write locks the tenant row first: holding it here stalls them all.
    const lock = await database.sql.reserve();
    await lock`begin`;
    await lock`select id from tenants where id = ${tenant.tenantId} for update`;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await post(agent, url, path, admin.token, {
        role: 'STUDENT',
        email: `${unique('a')}@x.test`,
      });
      expect(first.status).toBe(503);
      // The next request of the same client, on the same agent; it waits for the lock too.
      const second = post(agent, url, path, admin.token, { role: 'STUDENT', email: `${unique('b')}@x.test` });
      await new Promise((resolve) => setTimeout(resolve, 150));
      // The database answers: the first request's handler finishes late, then the second's.
      await lock`commit`;
      const answer = await second;
      expect(answer, 'the second request died with the first one').toMatchObject({ status: 201 });
      // How: the 503 closes its connection, so the next request goes on a fresh one.
      expect(first.connection).toBe('close');
      expect(answer.socketPort).not.toBe(first.socketPort);
    } finally {
      await lock`rollback`.catch(() => {});
      lock.release();
      agent.destroy();
    }
  });
});
