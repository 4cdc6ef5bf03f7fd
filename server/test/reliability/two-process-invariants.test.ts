import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../support/factories.js';
import {
  ALLOWED,
  answerKey,
  invariantViolations,
  type Logged,
  type Op,
  reconcile,
  send,
  succeeded,
} from './race-ops.js';
import { createRelDatabase, postgresUrl, type RelDatabase } from './rel-database.js';
import { type Spawned, startServerProcess, stopServerProcess } from './server-process.js';
import { type Caller, callerFor, dataOf } from './timed-fetch.js';

// Two real server processes on one PostgreSQL share no memory: the data's invariants (one
// membership per user and tenant, unique slugs, an OWNER in every tenant, no orphan) can only hold through the database's constraints, transactions and locks. Every round races, at
// once and split across both processes: last-owner removals and demotions, duplicate creates,
// a slug taken by two creates and a rename, and a tenant deleted while members are added to it.
const ROUNDS = Number(process.env.REL_ROUNDS ?? 200);
const SEED = Number(process.env.REL_SEED ?? Date.now() % 2 ** 31);
const SECRET = 'two-process-invariants-secret-of-32-bytes';
const ADMIN = unique('invariants-admin');

let database: RelDatabase;
let workdir: string;
let servers: Spawned[] = [];
let calls: Caller[] = [];
const log: Logged[] = [];

beforeAll(async () => {
  if (!postgresUrl()) return;
  database = await createRelDatabase();
  workdir = mkdtempSync(join(tmpdir(), 'tms-invariants-'));
  const env = { DATABASE_URL: database.url, AUTH_JWT_SECRET: SECRET, SUPER_ADMIN_SUBJECTS: ADMIN };
  // Started together, they also race on the migrations (serialised by an advisory lock).
  servers = await Promise.all([startServerProcess(env, workdir), startServerProcess(env, workdir)]);
  const token = await signDevToken(SECRET, { sub: ADMIN, ttl: '30m' });
  calls = servers.map((server) => callerFor(server.baseUrl, token, 15_000));
}, 60_000);

afterAll(async () => {
  const exits = await Promise.all(servers.map((server) => stopServerProcess(server)));
  await database?.drop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
  expect(exits).toEqual(servers.map(() => ({ code: 0, signal: null })));
}, 60_000);

/** mulberry32: a small seeded generator, so that a failing order can be replayed with REL_SEED. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

async function run(round: number, proc: number, op: Op) {
  const client = calls[proc % 2];
  if (!client) throw new Error('no server process');
  const answer = await send(client, op);
  log.push({ round, proc: proc % 2, op, answer });
  return answer;
}

const email = (prefix: string) => `${unique(prefix)}@example.test`;
const tenantIdOf = (answer: Logged['answer']) => dataOf<{ tenantId: string }>(answer).tenantId;

/** Four fresh tenants, one with two OWNERs, made through both processes. */
async function seed(round: number) {
  const must = async (proc: number, op: Op) => {
    const answer = await run(round, proc, op);
    if (!succeeded(answer))
      throw new Error(`round ${round}: seeding ${op.kind} answered ${answerKey(answer)}`);
    return answer;
  };
  const slugs = [unique('own'), unique('dup'), unique('slug'), unique('doom')] as const;
  const [owners, dup, slugTenant, doomed] = await Promise.all(
    slugs.map((slug, k) => must(round + k, { kind: 'createTenant', slug, ownerEmail: email('owner') })),
  );
  if (!owners || !dup || !slugTenant || !doomed) throw new Error('seeding lost a tenant');
  const tenantId = tenantIdOf(owners);
  const second = await must(round + 1, {
    kind: 'addMember',
    tenantId,
    role: 'OWNER',
    email: email('owner-b'),
  });
  const b = dataOf<{ tenantMembershipId: string }>(second).tenantMembershipId;
  const list = await calls[0]?.('GET', `/tenants/${tenantId}/memberships`);
  if (list?.status !== 200) throw new Error(`round ${round}: listing answered ${list?.status}`);
  const first = dataOf<{ tenantMembershipId: string; userId: string }[]>(list).find(
    (m) => m.tenantMembershipId !== b,
  );
  if (!first) throw new Error(`round ${round}: the first OWNER is missing`);
  return {
    owners: { tenantId, a: first.tenantMembershipId, b, userA: first.userId },
    dupTenantId: tenantIdOf(dup),
    slugTenant: { tenantId: tenantIdOf(slugTenant), slug: slugs[2] },
    doomed: { tenantId: tenantIdOf(doomed), slug: slugs[3] },
  };
}

type Seeds = Awaited<ReturnType<typeof seed>>;
type Group = 'owners' | 'dup' | 'slug' | 'doomed';

const OWNER_MOVES: ['demote' | 'removeMember', 'a' | 'b'][][] = [
  [
    ['demote', 'a'],
    ['removeMember', 'b'],
  ],
  [
    ['removeMember', 'a'],
    ['removeMember', 'b'],
    ['demote', 'a'],
  ],
  [
    ['demote', 'a'],
    ['demote', 'b'],
    ['removeMember', 'a'],
    ['removeMember', 'b'],
  ],
];

function raceOps(round: number, s: Seeds): [Group, Op][] {
  const { tenantId } = s.owners;
  const moves = OWNER_MOVES[round % OWNER_MOVES.length] ?? [];
  const owners = moves.map(([kind, who]): [Group, Op] => [
    'owners',
    { kind, tenantId, membershipId: s.owners[who] },
  ]);
  // Duplicates: by email (a new, invited user) in even rounds, by userId in odd ones.
  const dupBody = round % 2 === 0 ? { email: email('dup') } : { userId: s.owners.userA };
  const dups = Array.from({ length: 4 }, (): [Group, Op] => [
    'dup',
    { kind: 'addMember', tenantId: s.dupTenantId, ...dupBody },
  ]);
  const taken = unique('taken');
  const slug: [Group, Op][] = [
    ['slug', { kind: 'createTenant', slug: taken, ownerEmail: email('slug-a') }],
    ['slug', { kind: 'renameTenant', tenantId: s.slugTenant.tenantId, slug: taken, from: s.slugTenant.slug }],
    ['slug', { kind: 'createTenant', slug: taken, ownerEmail: email('slug-b') }],
  ];
  const doomedId = s.doomed.tenantId;
  const doomed: [Group, Op][] = [
    ['doomed', { kind: 'deleteTenant', tenantId: doomedId }],
    ...Array.from({ length: 3 }, (): [Group, Op] => [
      'doomed',
      { kind: 'addMember', tenantId: doomedId, email: email('late') },
    ]),
    ['doomed', { kind: 'renameTenant', tenantId: doomedId, slug: unique('renamed'), from: s.doomed.slug }],
  ];
  return [...owners, ...dups, ...slug, ...doomed];
}

describe.skipIf(!postgresUrl())(
  'two server processes on one PostgreSQL, hammered with conflicting requests',
  () => {
    it(`keep every invariant of the data, and every 2xx answer is in the database (${ROUNDS} rounds)`, async () => {
      console.warn(`two-process invariants: seed ${SEED}, ${ROUNDS} rounds (replay with REL_SEED=${SEED})`);
      const started = Date.now();
      const next = random(SEED);
      const ownerTenants: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const seeds = await seed(round);
        ownerTenants.push(seeds.owners.tenantId);
        // Shuffled, so that neither process nor any kind of request is always sent first.
        const ops = raceOps(round, seeds)
          .map((entry) => ({ entry, key: next() }))
          .sort((x, y) => x.key - y.key)
          .map(({ entry }) => entry);
        const played = await Promise.all(
          ops.map(async ([group, op], k) => ({ group, op, answer: await run(round, k + round, op) })),
        );
        const of = (group: Group) => played.filter((p) => p.group === group).map((p) => p.answer);
        const context = `round ${round}: ${played.map((p) => `${p.op.kind}=${answerKey(p.answer)}`).join(', ')}`;

        for (const { op, answer } of played) expect(ALLOWED[op.kind], context).toContain(answerKey(answer));
        expect(of('dup').filter(succeeded), context).toHaveLength(1);
        expect(of('slug').filter(succeeded), context).toHaveLength(1);
        // Two OWNERs: exactly one of them loses the role (by demotion, removal or both).
        const lost = new Set(
          played.flatMap(({ group, op, answer }) =>
            group === 'owners' && 'membershipId' in op && succeeded(answer) ? [op.membershipId] : [],
          ),
        );
        expect(lost.size, context).toBe(1);
      }
      const seconds = (Date.now() - started) / 1000;

      const violations = await invariantViolations(database.sql);
      expect(violations).toEqual({ duplicates: [], slugs: [], ownerless: [], orphans: [] });
      const owners = await database.sql<{ tenant_id: string; n: number }[]>`
      select tenant_id, count(*)::int as n from tenant_memberships
      where tenant_id = any(${ownerTenants}::uuid[]) and role = 'OWNER' group by tenant_id`;
      expect(owners.filter((row) => row.n !== 1)).toEqual([]);
      expect(owners).toHaveLength(ROUNDS);
      expect(await reconcile(database.sql, log)).toEqual([]);
      expect(
        log.filter((e) => e.answer.status >= 500 || e.answer.status === 0).map((e) => answerKey(e.answer)),
      ).toEqual([]);

      const byKind: Record<string, Record<string, number>> = {};
      for (const { op, answer } of log) {
        const kind = byKind[op.kind] ?? {};
        kind[answerKey(answer)] = (kind[answerKey(answer)] ?? 0) + 1;
        byKind[op.kind] = kind;
      }
      const perProcess = [0, 1].map((p) => log.filter((e) => e.proc === p).length);
      console.warn(
        `two-process invariants: ${ROUNDS} rounds, ${log.length} requests (${perProcess.join(' + ')} per process) in ${seconds.toFixed(1)} s; ${JSON.stringify(byKind)}`,
      );
    }, 180_000);
  },
);
