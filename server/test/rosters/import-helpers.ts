import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createRawClient } from '@tms/client';
import { asc, eq } from 'drizzle-orm';
import { createApp } from '../../src/app.js';
import { signDevToken } from '../../src/auth/sign-token.js';
import { createTokenVerifier } from '../../src/auth/token-verifier.js';
import type { Database } from '../../src/db/database.js';
import { auditEvents, tenantMemberships, users } from '../../src/db/schema.js';
import { envelopeClientErrors } from '../../src/http/client-error.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { createLogger } from '../../src/logger.js';
import type { RosterStage } from '../../src/modules/rosters/roster-imports.service.js';
import { RosterJobs, type RosterJobsOptions } from '../../src/modules/rosters/roster-jobs.js';
import { type Actor, addMember, createTenantFixture, type TenantFixture } from '../support/factories.js';
import { offlineResolver, TEST_SECRET, type TestServer } from '../support/harness.js';
import { type Json, jsonOf } from '../support/json.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

export type RosterServer = TestServer & { jobs: RosterJobs; holds: Holds };

/**
 * The test server of support/harness.ts, with its roster jobs in the test's hands: it waits for them
 * (jobs.idle()), holds an import at a stage (holds), beats and stops them, never on a timer.
 */
export async function startRosterServer(
  options: { database?: TestDatabase; jobs?: Partial<RosterJobsOptions>; requestTimeoutMs?: number } = {},
): Promise<RosterServer> {
  const database = options.database ?? (await createTestDatabase());
  const logger = createLogger(process.env.LOG_LEVEL ?? 'silent');
  const holds = new Holds();
  const jobs = new RosterJobs({
    db: database.db,
    logger,
    onStage: (importId, stage) => holds.reached(importId, stage),
    ...options.jobs,
  });
  const app = createApp({
    db: database.db,
    verifyToken: createTokenVerifier({ secret: TEST_SECRET }),
    logger,
    version: 'test',
    requestTimeoutMs: options.requestTimeoutMs,
    webhooks: { allowPrivateNetworks: false, requireHttps: false, resolve: offlineResolver },
    rosterJobs: jobs,
  });
  const server = createHttpServer(app).listen(0, '127.0.0.1');
  envelopeClientErrors(server);
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    db: database.db,
    database,
    jobs,
    holds,
    client: (token) => createRawClient({ baseUrl, token }),
    token: (sub, claims = {}) => signDevToken(TEST_SECRET, { sub, ...claims }),
    close: async () => {
      holds.releaseAll();
      await jobs.stop(Promise.resolve());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.database) await database.close();
    },
  };
}

/** Imports held at a stage until the test releases them: "RUNNING" seen without a sleep. */
export class Holds {
  private readonly waiting = new Map<
    RosterStage,
    { reached(importId: string): void; released: Promise<void> }
  >();
  private readonly releases: (() => void)[] = [];

  /** The next import to reach `stage` stops there: `reached` resolves then, `release()` lets it go on. */
  at(stage: RosterStage): { reached: Promise<string>; release: () => void } {
    let reached!: (importId: string) => void;
    const arrival = new Promise<string>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.releases.push(release);
    this.waiting.set(stage, { reached, released });
    return { reached: arrival, release };
  }

  async reached(importId: string, stage: RosterStage): Promise<void> {
    const hold = this.waiting.get(stage);
    if (!hold) return;
    this.waiting.delete(stage);
    hold.reached(importId);
    await hold.released;
  }

  releaseAll(): void {
    for (const release of this.releases) release();
  }
}

export const csvOf = (header: string, ...rows: string[]) => `${[header, ...rows].join('\n')}\n`;

export type Post = { query?: string; token: string; headers?: Record<string, string> };

/** POST a CSV file (a string or bytes) to the tenant's roster imports. */
export function postCsv(
  h: TestServer,
  tenantId: string,
  body: string | Buffer,
  post: Post,
): Promise<Response> {
  return fetch(`${h.baseUrl}/tenants/${tenantId}/roster-imports${post.query ? `?${post.query}` : ''}`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${post.token}`, 'content-type': 'text/csv', ...post.headers },
  });
}

export function postRows(h: TestServer, tenantId: string, rows: unknown[], post: Post): Promise<Response> {
  return postCsv(h, tenantId, JSON.stringify({ rows }), {
    ...post,
    headers: { 'content-type': 'application/json', ...post.headers },
  });
}

/** The answer as status and body, for one assertion that shows both. */
export async function answerOf(res: Response): Promise<{ status: number; body: Json }> {
  return { status: res.status, body: await jsonOf(res) };
}

export async function importOf(h: TestServer, tenantId: string, importId: string, token: string) {
  return answerOf(
    await fetch(`${h.baseUrl}/tenants/${tenantId}/roster-imports/${importId}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
}

/** The import a refusal names in its message (a 409 is an error envelope: no data). */
export const importIdIn = (message: string) => /import ([0-9a-f-]{36})/.exec(message)?.[1] ?? '';

/** The tenant's memberships with their users' addresses, straight from the database. */
export async function membersOf(db: Database, tenantId: string) {
  return db
    .select({
      id: tenantMemberships.id,
      email: users.email,
      role: tenantMemberships.role,
      startsAt: tenantMemberships.startsAt,
      endsAt: tenantMemberships.endsAt,
      version: tenantMemberships.version,
      invitedDisplayName: tenantMemberships.invitedDisplayName,
    })
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(eq(tenantMemberships.tenantId, tenantId))
    .orderBy(asc(tenantMemberships.id));
}

/** The tenant's audit events, oldest first. */
export async function eventsOf(db: Database, tenantId: string) {
  return db
    .select({
      sequence: auditEvents.sequence,
      action: auditEvents.action,
      targetId: auditEvents.targetId,
      actorUserId: auditEvents.actorUserId,
      requestId: auditEvents.requestId,
    })
    .from(auditEvents)
    .where(eq(auditEvents.tenantId, tenantId))
    .orderBy(asc(auditEvents.sequence));
}

/** `n` rows of new students, `prefix` keeping each call's addresses apart. */
export const students = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${i}@example.test,student`);

/** A tenant with its OWNER, an ADMIN and `extra` STUDENTs (addresses in `emails`, the OWNER's first). */
export async function schoolWith(
  h: TestServer,
  extra: number,
): Promise<TenantFixture & { admin: Actor; emails: string[] }> {
  const t = await createTenantFixture(h);
  const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const emails = [t.owner.email, admin.email];
  for (let i = 0; i < extra; i++) emails.push((await addMember(h, t.tenantId, 'STUDENT')).actor.email);
  return { ...t, admin, emails };
}
