import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signing.js';
import { unique } from '../support/factories.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { type PgBouncer, startPgBouncer } from './pooler-pgbouncer.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';
import { type Spawned, startServerProcess, stopServerProcess } from './server-process.js';
import { callerFor, sleep } from './timed-fetch.js';

// Real server processes delivering to a receiver that holds the first request open, killed with
// SIGKILL mid-send: the claim is a transaction's advisory lock, so it dies with the connection, and
// the delivery goes again (same webhook-id), then everything behind it, in order, nothing lost.
const SECRET = 'webhook-kill-test-secret-of-at-least-32-bytes';
const ADMIN = unique('kill-admin');
const TENANTS = 4;

describe.skipIf(!postgresUrl())('a server killed mid-delivery, on PostgreSQL', () => {
  let database: RelDatabase;
  let receiver: WebhookReceiver;
  let workdir: string;
  let bouncer: PgBouncer | undefined;
  const servers: Spawned[] = [];

  beforeAll(async () => {
    workdir = mkdtempSync(join(tmpdir(), 'tms-webhook-kill-'));
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
    rmSync(workdir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await stopServerProcess(server, 5_000);
    await bouncer?.stop();
    bouncer = undefined;
    await database?.drop();
    receiver.requests.length = 0;
  });

  /** A server process on the test's database, directly or through PgBouncer in transaction mode. */
  const start = async () => {
    const server = await startServerProcess(
      {
        ...(bouncer
          ? { DATABASE_URL: bouncer.url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: database.url }
          : { DATABASE_URL: database.url }),
        AUTH_JWT_SECRET: SECRET,
        SUPER_ADMIN_SUBJECTS: ADMIN,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        TENANT_PURGE_INTERVAL_MINUTES: '0',
      },
      workdir,
    );
    servers.push(server);
    return server;
  };

  /** A platform endpoint (every event) at `path`; the first request it gets is held open. */
  async function endpointHoldingFirst(path: string): Promise<string> {
    const secret = generateWebhookSecret();
    receiver.setSecret(path, secret);
    let held = false;
    receiver.answer = () => {
      if (held) return { status: 204 };
      held = true;
      return 'hold';
    };
    const [row] = await database.sql<{ id: string }[]>`
      insert into webhook_endpoints (id, tenant_id, url, events, secret)
      values (gen_random_uuid(), null, ${receiver.url(path)}, ${['*']}, ${secret}) returning id`;
    if (!row) throw new Error('no endpoint');
    return row.id;
  }

  /** Tenants created through the API: two events each (tenant.created, membership.created). */
  async function createTenants(server: Spawned) {
    const call = callerFor(server.baseUrl, await signDevToken(SECRET, { sub: ADMIN, ttl: '10m' }));
    for (let i = 0; i < TENANTS; i++) {
      const slug = unique('kill');
      const answer = await call('POST', '/admin/tenants', {
        name: slug,
        slug,
        owner: { email: `${slug}@x.test` },
      });
      expect(answer.status).toBe(201);
    }
  }

  /**
   * Every delivery was answered 2xx, in queue order; the held one was sent twice. The last answer
   * reaches the receiver before its outcome commits: the queue is read until it shows them all.
   */
  async function expectAllDelivered(endpointId: string, path: string) {
    const readQueue = () => database.sql<{ id: string; status: string }[]>`
      select id, status from webhook_deliveries where endpoint_id = ${endpointId} order by position`;
    let queue = await readQueue();
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; queue = await readQueue()) {
      if (queue.every((delivery) => delivery.status === 'DELIVERED')) break;
      await sleep(50);
    }
    expect(queue).toHaveLength(TENANTS * 2);
    expect(queue.map((delivery) => delivery.status)).toEqual(queue.map(() => 'DELIVERED'));
    const got = receiver.to(path);
    expect(got.every((request) => request.verified)).toBe(true);
    const answered = got.filter((request) => !request.aborted).map((request) => request.webhookId);
    expect(answered).toEqual(queue.map((delivery) => delivery.id));
    expect(got[0]).toMatchObject({ aborted: true, webhookId: queue[0]?.id });
    expect(receiver.maxInFlight.get(path)).toBe(1);
  }

  it('delivers the held delivery again after a restart, then the rest in order', async () => {
    database = await createRelDatabase();
    const first = await start();
    const endpointId = await endpointHoldingFirst('/restart');
    await createTenants(first);
    await receiver.waitFor(() => receiver.heldCount === 1, 20_000, 'the first delivery held');

    first.child.kill('SIGKILL');
    await first.exit;
    await start();
    await receiver.waitFor(
      () => receiver.to('/restart').filter((request) => !request.aborted).length >= TENANTS * 2,
      30_000,
      'every delivery after the restart',
    );
    await expectAllDelivered(endpointId, '/restart');
  }, 120_000);

  it('finishes and records the send in flight on SIGTERM, then exits 0', async () => {
    database = await createRelDatabase();
    const server = await start();
    const endpointId = await endpointHoldingFirst('/sigterm');
    await createTenants(server);
    await receiver.waitFor(() => receiver.heldCount === 1, 20_000, 'the first delivery held');
    server.child.kill('SIGTERM');
    // Still stopping: the delivery in flight holds the exit, however long the receiver takes (≤ 10 s).
    await sleep(500);
    expect(server.child.exitCode).toBeNull();
    receiver.release();
    expect(await server.exit).toEqual({ code: 0, signal: null });
    const [head, ...rest] = await database.sql<{ id: string; status: string; attempts: number }[]>`
      select id, status, attempts from webhook_deliveries where endpoint_id = ${endpointId} order by position`;
    expect(head).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(receiver.to('/sigterm')).toMatchObject([{ webhookId: head?.id, aborted: false }]);
    // Nothing new started once the signal came: the rest waits for the next process.
    expect(rest.map((delivery) => delivery.status)).toEqual(rest.map(() => 'PENDING'));
  }, 120_000);

  // Through a transaction pooler, the advisory lock and the SET LOCAL still hold: both are the
  // transaction's, which keeps its server connection until it ends, or the client goes.
  it.each(['directly', 'through PgBouncer'])(
    'is taken over by another live process as soon as the sender dies, not before (%s)',
    async (how) => {
      database = await createRelDatabase();
      if (how !== 'directly') bouncer = await startPgBouncer(database.url);
      const sender = await start();
      const endpointId = await endpointHoldingFirst('/takeover');
      await createTenants(sender);
      await receiver.waitFor(() => receiver.heldCount === 1, 20_000, 'the first delivery held');
      await start();
      // The other process polls every 50 ms and sees the endpoint's head due: it must leave it alone
      // while its sender lives (an absence, so it takes a while to see).
      await sleep(1_000);
      expect(receiver.to('/takeover')).toHaveLength(1);

      const killedAt = performance.now();
      sender.child.kill('SIGKILL');
      await receiver.waitFor(() => receiver.to('/takeover').length >= 2, 10_000, 'the takeover');
      const takeoverMs = performance.now() - killedAt;
      console.warn(`webhook takeover after SIGKILL (${how}): ${Math.round(takeoverMs)} ms`);
      expect(takeoverMs).toBeLessThan(3_000);
      await receiver.waitFor(
        () => receiver.to('/takeover').filter((request) => !request.aborted).length >= TENANTS * 2,
        30_000,
        'every delivery after the takeover',
      );
      await expectAllDelivered(endpointId, '/takeover');
    },
    120_000,
  );
});
