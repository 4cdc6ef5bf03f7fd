import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRawClient, type RawClient } from '@tms/client';
import postgres from 'postgres';
import { expect } from 'vitest';
import { type DevTokenInput, signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../support/factories.js';
import { type Spawned, spawnServer } from '../support/spawn-server.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';

export type TwoServers = {
  /** One super-administrator client per process: [first, second]. */
  apis: [RawClient, RawClient];
  baseUrls: [string, string];
  /** A connection of the test's own, beside the servers', to read what they wrote. */
  sql: postgres.Sql;
  /** A token for any subject, signed as the servers expect. */
  token(input: DevTokenInput): Promise<string>;
  /** Stops both (SIGTERM), drops the database, and checks that both exited 0. */
  stop(): Promise<void>;
};

const SECRET = 'two-servers-secret-of-at-least-32-bytes-long';

/**
 * Two built server processes on one fresh PostgreSQL database, started together (so they also
 * race on the migrations): what a race across processes needs, since they share no memory.
 */
export async function startTwoServers(env: Record<string, string> = {}): Promise<TwoServers> {
  const database: BareDatabase = await createBareDatabase();
  const workdir = mkdtempSync(join(tmpdir(), 'tms-two-servers-'));
  const adminSubject = unique('race-admin');
  const serverEnv = {
    DATABASE_URL: database.url,
    AUTH_JWT_SECRET: SECRET,
    NODE_ENV: 'test',
    SUPER_ADMIN_SUBJECTS: adminSubject,
    // These tests race requests against each other, and every request must run: a burst on one
    // tenant waits for its turn instead of being shed (shedding is the overload suite's subject),
    // also on a machine slowed by other work.
    ADMISSION_MAX_WAIT_MS: '20000',
    REQUEST_TIMEOUT_MS: '30000',
    ...env,
  };
  const servers: Spawned[] = await Promise.all([
    spawnServer(serverEnv, workdir),
    spawnServer(serverEnv, workdir),
  ]);
  const [first, second] = servers as [Spawned, Spawned];
  const adminToken = await signDevToken(SECRET, { sub: adminSubject });
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  return {
    apis: [
      createRawClient({ baseUrl: first.baseUrl, token: adminToken }),
      createRawClient({ baseUrl: second.baseUrl, token: adminToken }),
    ],
    baseUrls: [first.baseUrl, second.baseUrl],
    sql,
    token: (input) => signDevToken(SECRET, input),
    stop: async () => {
      await sql.end({ timeout: 5 });
      for (const server of servers) server.child.kill('SIGTERM');
      const exits = await Promise.all(servers.map((s) => s.exit));
      await database.drop();
      rmSync(workdir, { recursive: true, force: true });
      // After the database is gone, so that a failed stop leaves nothing behind.
      expect(exits).toEqual(servers.map(() => ({ code: 0, signal: null })));
    },
  };
}

/** Who a seeded OWNER is: an address invited (nobody has signed in with it yet), or a user. */
export type OwnerRef = { email: string } | { userId: string };

/**
 * A fresh tenant with exactly two OWNERs, seeded through HTTP on the first process: A made its
 * owner with the tenant, B added. Answers the tenant and the two membership ids.
 */
export async function seedTwoOwners(
  servers: TwoServers,
  slug: string,
  owners: { A: OwnerRef; B: OwnerRef },
): Promise<{ tenantId: string; A: string; B: string }> {
  const [api] = servers.apis;
  const tenant = await api.tenants.create({ body: { name: slug, slug, owner: owners.A } });
  if (tenant.status !== 201) throw new Error(`seeding answered ${tenant.status}`);
  const tenantId = tenant.body.data.tenantId;
  const second = await api.memberships.create({
    params: { tenantId },
    body: { role: 'OWNER', ...owners.B },
  });
  if (second.status !== 201) throw new Error(`seeding answered ${second.status}`);
  const B = second.body.data.tenantMembershipId;
  // The tenant has no other membership: the one that is not B is A's.
  const [a] = await servers.sql<{ id: string }[]>`
    select id from tenant_memberships where tenant_id = ${tenantId} and id <> ${B}`;
  if (!a) throw new Error('the first OWNER is missing');
  return { tenantId, A: a.id, B };
}
