import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../support/factories.js';
import { type PgBouncer, startPgBouncer } from './pooler-pgbouncer.js';
import { ALLOWED, answerKey, invariantViolations, type Op, send } from './race-ops.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';
import { type Spawned, startServerProcess, stopServerProcess } from './server-process.js';
import { type Answer, type Caller, callerFor, dataOf } from './timed-fetch.js';

// Managed PostgreSQL is reached through a pooler in transaction mode: each transaction may run on
// another server connection, which other clients share. With DATABASE_POOLER=transaction the
// service runs behind Debian's PgBouncer with its stock settings: no named prepared statement, no
// startup parameter, its timeouts set for each transaction, its migrations in one transaction.
const SECRET = 'pooler-reliability-secret-of-32-bytes!!';
const ADMIN = unique('pooler-admin');
const ROUNDS = Number(process.env.REL_POOLER_ROUNDS ?? 40);
const JOURNAL = new URL('../../drizzle/meta/_journal.json', import.meta.url);

let database: RelDatabase;
let bouncer: PgBouncer;
let workdir: string;
let servers: Spawned[] = [];
let admin: Caller[] = [];
let env: Record<string, string>;
let adminToken = '';
/** What the start measured: the other clients' errors while both processes migrated. */
const startup = { otherClientQueries: 0, otherClientErrors: [] as string[] };

const tokenFor = (sub: string, email?: string) =>
  signDevToken(SECRET, { sub, ttl: '30m', ...(email && { email, emailVerified: true }) });
const email = (prefix: string) => `${unique(prefix)}@example.test`;

beforeAll(async () => {
  if (!postgresUrl()) return;
  database = await createRelDatabase();
  bouncer = await startPgBouncer(database.url);
  workdir = mkdtempSync(join(tmpdir(), 'tms-pooler-'));
  env = {
    DATABASE_URL: bouncer.url,
    DATABASE_POOLER: 'transaction',
    DATABASE_POOL_SIZE: '8',
    AUTH_JWT_SECRET: SECRET,
    SUPER_ADMIN_SUBJECTS: ADMIN,
    // Above the statement timeout (5 s), so that the blocked writes below show the database's bound.
    REQUEST_TIMEOUT_MS: '20000',
    // The racing burst below must run, not be shed (shedding is the overload suite's subject),
    // also on a machine slowed by other work.
    ADMISSION_MAX_WAIT_MS: '15000',
  };
  // Other clients of the pooler keep it busy while both processes start and migrate at once.
  const other = postgres(bouncer.url, { max: 3, prepare: false, onnotice: () => {} });
  let starting = true;
  const load = Array.from({ length: 3 }, async () => {
    while (starting) {
      try {
        await other`select count(*) from pg_class where relname = ${'tenants'}`;
        startup.otherClientQueries++;
      } catch (error) {
        startup.otherClientErrors.push((error as Error).message);
      }
    }
  });
  try {
    servers = await Promise.all([startServerProcess(env, workdir), startServerProcess(env, workdir)]);
  } finally {
    starting = false;
    await Promise.all(load);
    await other.end({ timeout: 5 });
  }
  adminToken = await tokenFor(ADMIN);
  admin = servers.map((server) => callerFor(server.baseUrl, adminToken, 30_000));
}, 90_000);

afterAll(async () => {
  const exits = await Promise.all(servers.map((server) => stopServerProcess(server)));
  await bouncer?.stop();
  await database?.drop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
  expect(exits).toEqual(servers.map(() => ({ code: 0, signal: null })));
}, 60_000);

const expectStatus = (answer: Answer, status: number) =>
  expect(answer.status, `${answer.method} ${answer.path}: ${JSON.stringify(answer.body)}`).toBe(status);

describe.skipIf(!postgresUrl())(
  'behind PgBouncer 1.18 in transaction mode (DATABASE_POOLER=transaction)',
  () => {
    it('two processes started at once migrate once, leave no lock held, and a third starts', async () => {
      expect(startup.otherClientErrors).toEqual([]);
      expect(startup.otherClientQueries).toBeGreaterThan(0);
      const journal = JSON.parse(readFileSync(JOURNAL, 'utf8')) as { entries: unknown[] };
      const [applied] = await database.sql<
        { n: number }[]
      >`select count(*)::int as n from drizzle.__drizzle_migrations`;
      expect(applied?.n).toBe(journal.entries.length);
      const locks = await database.sql`select pid from pg_locks where locktype = 'advisory'`;
      expect([...locks]).toEqual([]);
      // A lock left on a pooled connection would make this one wait for ever.
      const third = await startServerProcess(env, workdir);
      expect(await stopServerProcess(third)).toEqual({ code: 0, signal: null });
    }, 60_000);

    it('runs the write paths: tenants, memberships, invitations, transfers, an idempotent POST', async () => {
      const [one, two] = admin as [Caller, Caller];
      const ownerEmail = email('owner');
      const created = await one('POST', '/admin/tenants', {
        name: 'Pooled school',
        slug: unique('pooled'),
        owner: { email: ownerEmail },
      });
      expectStatus(created, 201);
      const tenantId = dataOf<{ tenantId: string }>(created).tenantId;
      const base = servers[1]?.baseUrl as string;
      const owner = callerFor(base, await tokenFor(unique('owner-sub'), ownerEmail));
      expectStatus(await owner('GET', '/me'), 200);

      const added = await owner('POST', `/tenants/${tenantId}/memberships`, {
        role: 'STUDENT',
        email: email('s'),
      });
      expectStatus(added, 201);
      const membershipId = dataOf<{ tenantMembershipId: string }>(added).tenantMembershipId;
      expectStatus(
        await two('PATCH', `/tenants/${tenantId}/memberships/${membershipId}`, { role: 'TEACHER' }),
        200,
      );
      expectStatus(await owner('DELETE', `/tenants/${tenantId}/memberships/${membershipId}`), 204);

      const inviteeEmail = email('invitee');
      const invited = await owner('POST', `/tenants/${tenantId}/invitations`, {
        email: inviteeEmail,
        role: 'ADMIN',
      });
      expectStatus(invited, 201);
      const invitee = callerFor(
        servers[0]?.baseUrl as string,
        await tokenFor(unique('invitee-sub'), inviteeEmail),
      );
      const invitationId = dataOf<{ invitationId: string }>(invited).invitationId;
      const accepted = await invitee('POST', `/me/invitations/${invitationId}/accept`);
      expectStatus(accepted, 201);
      const inviteeMembership = dataOf<{ tenantMembershipId: string }>(accepted).tenantMembershipId;

      const offered = await owner('POST', `/tenants/${tenantId}/ownership-transfers`, {
        toMembershipId: inviteeMembership,
      });
      expectStatus(offered, 201);
      const transferId = dataOf<{ transferId: string }>(offered).transferId;
      expectStatus(await invitee('POST', `/me/ownership-transfers/${transferId}/accept`), 200);
      const list = await invitee('GET', `/tenants/${tenantId}/memberships`);
      expectStatus(list, 200);
      const roles = dataOf<{ tenantMembershipId: string; role: string }[]>(list);
      expect(roles.find((m) => m.tenantMembershipId === inviteeMembership)?.role).toBe('OWNER');

      // The same POST sent twice with one key, through both processes: one membership, one answer.
      const key = unique('idem');
      const body = { role: 'STUDENT', email: email('idem') };
      const post = (url: string) =>
        fetch(`${url}/tenants/${tenantId}/memberships`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${adminToken}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify(body),
        }).then(async (res) => ({ status: res.status, body: await res.json() }));
      const first = await post(servers[0]?.baseUrl as string);
      const again = await post(servers[1]?.baseUrl as string);
      expect(first.status).toBe(201);
      expect(again).toEqual(first);
      const [kept] = await database.sql<{ n: number }[]>`
      select count(*)::int as n from tenant_memberships m join users u on u.id = m.user_id
      where m.tenant_id = ${tenantId} and u.email = ${body.email}`;
      expect(kept?.n).toBe(1);
    }, 60_000);

    it('answers a burst of racing writes with no 5xx and no wrong answer: an OWNER always remains', async () => {
      const calls = admin as [Caller, Caller];
      // Per round: a tenant with two OWNERs raced away (the last-owner race) and an ADMIN, never
      // touched, who reads throughout: a member with rights is never refused, the tenant never missing.
      const rounds = await Promise.all(
        Array.from({ length: ROUNDS }, async (_, round) => {
          const call = calls[round % 2] as Caller;
          const created = await call('POST', '/admin/tenants', {
            name: 'Race',
            slug: unique('race'),
            owner: { email: email('owner-a') },
          });
          expectStatus(created, 201);
          const tenantId = dataOf<{ tenantId: string }>(created).tenantId;
          const ownerB = await call('POST', `/tenants/${tenantId}/memberships`, {
            role: 'OWNER',
            email: email('owner-b'),
          });
          const adminEmail = email('admin');
          const watcher = await call('POST', `/tenants/${tenantId}/memberships`, {
            role: 'ADMIN',
            email: adminEmail,
          });
          expectStatus(ownerB, 201);
          expectStatus(watcher, 201);
          const list = await call('GET', `/tenants/${tenantId}/memberships`);
          const owners = dataOf<{ tenantMembershipId: string; role: string }[]>(list)
            .filter((m) => m.role === 'OWNER')
            .map((m) => m.tenantMembershipId);
          const reader = callerFor(
            servers[(round + 1) % 2]?.baseUrl as string,
            await tokenFor(unique('admin-sub'), adminEmail),
          );
          expectStatus(await reader('GET', '/me'), 200);
          return { tenantId, owners, reader };
        }),
      );
      const log: { op: Op | { kind: 'read' }; answer: Answer }[] = [];
      await Promise.all(
        rounds.flatMap(({ tenantId, owners, reader }, round) => {
          const [a, b] = owners as [string, string];
          const ops: Op[] = [
            { kind: 'removeMember', tenantId, membershipId: a },
            { kind: 'demote', tenantId, membershipId: b },
            { kind: 'removeMember', tenantId, membershipId: b },
            { kind: 'demote', tenantId, membershipId: a },
          ];
          const writes = ops.map(async (op, k) => {
            log.push({ op, answer: await send(calls[(round + k) % 2] as Caller, op) });
          });
          const reads = [0, 1, 2].map(async () => {
            log.push({
              op: { kind: 'read' },
              answer: await reader('GET', `/tenants/${tenantId}/memberships`),
            });
          });
          return [...writes, ...reads];
        }),
      );
      const wrong = log.filter(({ op, answer }) =>
        op.kind === 'read' ? answer.status !== 200 : !ALLOWED[op.kind].includes(answerKey(answer)),
      );
      expect(wrong.map(({ op, answer }) => `${op.kind} ${answerKey(answer)} ${answer.path}`)).toEqual([]);
      const violations = await invariantViolations(database.sql);
      expect(violations).toEqual({ duplicates: [], slugs: [], ownerless: [], orphans: [] });
    }, 120_000);

    it('ends a write blocked by a row lock at the lock timeout, and a read blocked by a table lock at the statement timeout, with 503', async () => {
      const call = admin[0] as Caller;
      const created = await call('POST', '/admin/tenants', {
        name: 'Locked',
        slug: unique('locked'),
        owner: { email: email('o') },
      });
      expectStatus(created, 201);
      const tenantId = dataOf<{ tenantId: string }>(created).tenantId;
      // A direct connection of the test's own holds the tenant's row lock, past the pooler.
      const blocked = await database.sql.begin(async (tx) => {
        await tx`select id from tenants where id = ${tenantId} for update`;
        return call('POST', `/tenants/${tenantId}/memberships`, { role: 'STUDENT', email: email('late') });
      });
      expect(blocked.status, JSON.stringify(blocked.body)).toBe(503);
      // lock_timeout (3 s), set per transaction as the other bounds are.
      expect(blocked.ms).toBeGreaterThanOrEqual(2500);
      expect(blocked.ms).toBeLessThan(4500);
      // A statement outside a transaction has no SET LOCAL: the client cancels it at the same bound.
      const read = await database.sql.begin(async (tx) => {
        await tx`lock table tenant_memberships in access exclusive mode`;
        return call('GET', `/tenants/${tenantId}/memberships`);
      });
      expect(read.status, JSON.stringify(read.body)).toBe(503);
      expect(read.ms).toBeGreaterThanOrEqual(4500);
      expect(read.ms).toBeLessThan(8000);
      // The bounds were the transaction's own: the pooler's server connections keep their defaults.
      const other = postgres(bouncer.url, { max: 1, prepare: false, onnotice: () => {} });
      try {
        const settings = await Promise.all(
          Array.from({ length: 5 }, () =>
            other`show statement_timeout`.then(([row]) => row?.statement_timeout),
          ),
        );
        expect(new Set(settings)).toEqual(new Set(['0']));
      } finally {
        await other.end({ timeout: 5 });
      }
      // Once the locks are gone, the same write goes through.
      expectStatus(
        await call('POST', `/tenants/${tenantId}/memberships`, { role: 'STUDENT', email: email('late') }),
        201,
      );
    }, 60_000);
  },
);
