import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Client, createClient } from '@tms/client';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { type PurgedTenant, purgeDeletedTenants } from '../../src/modules/tenants/tenant-deletion.service.js';
import { unique } from '../support/factories.js';
import { type Spawned, spawnServer } from '../support/spawn-server.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';

// A restore and a purge of one tenant, at once, across processes that share nothing but the
// database: the tenant ends restored (and the purge leaves it) or purged (and the restore is 404),
// never half of each; and two purges at once never both take one tenant. PostgreSQL only: PGlite
// runs one transaction at a time, so nothing there can race.
const ROUNDS = 20;
const PER_ROUND = 20;
const DAY_MS = 86_400_000;
const SECRET = 'restore-purge-race-secret-of-at-least-32-bytes';
const PURGE_CLI = fileURLToPath(new URL('../../dist/cli/purge.js', import.meta.url));

let database: BareDatabase;
let workdir: string;
let servers: Spawned[] = [];
/** A super-administrator SDK per server process. */
let sdks: [Client, Client];
/** Two handles of this process's own, each its own pool: two purgers that share no connection. */
let purgers: [DatabaseHandle, DatabaseHandle];
let sql: postgres.Sql;

beforeAll(async () => {
  database = await createBareDatabase();
  workdir = mkdtempSync(join(tmpdir(), 'tms-restore-purge-'));
  const admin = unique('purge-admin');
  // Retention 30 days in the servers: the tenants below (deleted 2 days ago) are theirs to restore.
  const env = {
    DATABASE_URL: database.url,
    AUTH_JWT_SECRET: SECRET,
    NODE_ENV: 'test',
    SUPER_ADMIN_SUBJECTS: admin,
  };
  servers = await Promise.all([spawnServer(env, workdir), spawnServer(env, workdir)]);
  const token = await signDevToken(SECRET, { sub: admin });
  sdks = servers.map((s) => createClient({ baseUrl: s.baseUrl, token, retries: false })) as [Client, Client];
  purgers = [
    await openDatabase({ kind: 'postgres', url: database.url, poolSize: 4 }),
    await openDatabase({ kind: 'postgres', url: database.url, poolSize: 4 }),
  ];
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  for (const purger of purgers ?? []) await purger.close();
  for (const server of servers) server.child.kill('SIGTERM');
  const exits = await Promise.all(servers.map((s) => s.exit));
  await database?.drop();
  rmSync(workdir, { recursive: true, force: true });
  expect(exits).toEqual(servers.map(() => ({ code: 0, signal: null })));
}, 30_000);

/**
 * `n` tenants, each with an OWNER and a STUDENT, deleted 2 days (plus `i` seconds) ago: the
 * purge takes the oldest first, so it walks them from the last to the first.
 */
async function deletedTenants(n: number): Promise<string[]> {
  const tag = unique('race');
  const users = await sql<{ id: string }[]>`
    insert into users (id, email, email_canonical)
    select gen_random_uuid(), e, e from unnest(array[${`${tag}-o@r.test`}, ${`${tag}-s@r.test`}]) e
    returning id`;
  const [owner, student] = users.map((user) => user.id);
  if (!owner || !student) throw new Error('seeding made no users');
  const rows = await sql<{ id: string }[]>`
    insert into tenants (id, slug, name, deleted_at)
    select gen_random_uuid(), ${tag} || '-' || i, 'Race ' || i, now() - interval '2 days' - i * interval '1 second'
    from generate_series(0, ${n - 1}) i
    order by i
    returning id`;
  const ids = rows.map((row) => row.id);
  await sql`
    insert into tenant_memberships (id, tenant_id, user_id, role)
    select gen_random_uuid(), t, u.id, u.role::membership_role
    from unnest(${sql.array(ids)}::uuid[]) t,
         (values (${owner}::uuid, 'OWNER'), (${student}::uuid, 'STUDENT')) u(id, role)`;
  return ids;
}

/** What the database holds of each tenant: its row's deletion mark and its memberships. */
async function stateOf(ids: string[]) {
  const rows = await sql<{ id: string; deleted: boolean; members: number }[]>`
    select t.id, t.deleted_at is not null as deleted,
           (select count(*)::int from tenant_memberships m where m.tenant_id = t.id) as members
    from tenants t where t.id = any(${sql.array(ids)}::uuid[])`;
  return new Map(rows.map((row) => [row.id, row]));
}

const inFuture = (days: number) => new Date(Date.now() + days * DAY_MS);

/** The command a deployment schedules, in a process of its own, with a retention of 1 day. */
async function purgeProcess(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [PURGE_CLI], {
    cwd: workdir,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, TENANT_RETENTION_DAYS: '1' },
    encoding: 'utf8',
  });
  return [...stdout.matchAll(/^purged (\S+) /gm)].map((match) => match[1] as string);
}

const idsOf = (purged: PurgedTenant[]) => purged.map((tenant) => tenant.id);

/** Each tenant is purged by at most one purger: no id twice across their reports. */
function expectDisjoint(reports: string[][]) {
  const all = reports.flat();
  expect(new Set(all).size).toBe(all.length);
  return new Set(all);
}

describe('restore vs purge, across processes', () => {
  it(`each tenant ends restored or purged, never half (${ROUNDS} rounds of ${PER_ROUND})`, async () => {
    const outcomes = { restored: 0, purged: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await deletedTenants(PER_ROUND);
      // Restores from the first tenant on, through both servers; the purges from the last one on:
      // they meet somewhere in the middle. Every fourth round a purge process joins in.
      const restores = Promise.all(
        ids.map((id, i) =>
          (sdks[i % 2] as Client).tenants.restore(id).then(
            (tenant) => ({ id, status: 200, version: tenant.version }),
            (error: { status?: number; code?: string }) => ({ id, status: error.status, code: error.code }),
          ),
        ),
      );
      const purges = Promise.all([
        purgeDeletedTenants(purgers[0].db, { days: 30 }, { now: inFuture(31), batchSize: 1 }).then(idsOf),
        round % 4 === 0 ? purgeProcess() : Promise.resolve([]),
      ]);
      const [answers, reports] = await Promise.all([restores, purges]);
      const purged = expectDisjoint(reports);
      const state = await stateOf(ids);

      for (const answer of answers) {
        const context = `round ${round}, tenant ${answer.id}: ${JSON.stringify(answer)}`;
        if (answer.status === 200) {
          // Restored: active, whole, and in no purger's report.
          expect(state.get(answer.id), context).toEqual({ id: answer.id, deleted: false, members: 2 });
          expect(answer, context).toMatchObject({ version: 2 });
          expect(purged.has(answer.id), context).toBe(false);
          outcomes.restored++;
        } else {
          // Purged: gone with everything it held, reported by exactly one purger.
          expect(answer, context).toMatchObject({ status: 404, code: 'TENANT_NOT_FOUND' });
          expect(state.has(answer.id), context).toBe(false);
          expect(purged.has(answer.id), context).toBe(true);
          outcomes.purged++;
        }
      }
      const [members] = await sql<{ n: number }[]>`
        select count(*)::int as n from tenant_memberships where tenant_id = any(${sql.array(ids)}::uuid[])`;
      expect(members?.n).toBe(2 * (PER_ROUND - purged.size));
    }
    // The two ends met: both outcomes happened, so the race was run, not just one side of it.
    expect(outcomes.restored).toBeGreaterThan(0);
    expect(outcomes.purged).toBeGreaterThan(0);
  }, 120_000);
});

describe('two purges at once', () => {
  it(`never both take one tenant, and together take them all (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await deletedTenants(40);
      const reports = await Promise.all(
        purgers.map((purger) =>
          purgeDeletedTenants(purger.db, { days: 30 }, { now: inFuture(31), batchSize: 1 }).then(idsOf),
        ),
      );
      const purged = expectDisjoint(reports);
      expect([...purged].filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
      expect((await stateOf(ids)).size).toBe(0);
    }
  }, 120_000);

  it('two purge processes and this one share the work, never a tenant', async () => {
    for (let round = 0; round < 3; round++) {
      const ids = await deletedTenants(60);
      const reports = await Promise.all([
        purgeProcess(),
        purgeProcess(),
        purgeDeletedTenants(purgers[1].db, { days: 30 }, { now: inFuture(31), batchSize: 1 }).then(idsOf),
      ]);
      const purged = expectDisjoint(reports);
      expect([...purged].filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
      expect((await stateOf(ids)).size).toBe(0);
    }
  }, 120_000);
});
