import type { RawClient } from '@tms/client';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import {
  type AnyResponse,
  errorCodeOf,
  expectOneLastOwnerRefusal,
  uniqueEmail,
} from '../support/memberships.js';
import { seedTwoOwners, startTwoServers, type TwoServers } from './two-servers.js';

// The last-owner rule and the one-membership-per-user rule must hold in the database itself: two
// processes share no memory, so only the tenant row lock and the unique index can keep them.
const ROUNDS = 60;
let servers: TwoServers;
let sql: postgres.Sql;
/** One super-administrator client per process: [first, second]. */
let apis: TwoServers['apis'];

beforeAll(async () => {
  servers = await startTwoServers();
  ({ apis, sql } = servers);
}, 60_000);

afterAll(() => servers?.stop(), 30_000);

/** A tenant with two OWNERs, both invited by email, seeded through HTTP on the first process. */
const twoOwners = () =>
  seedTwoOwners(servers, unique('race'), {
    A: { email: uniqueEmail('owner-a') },
    B: { email: uniqueEmail('owner-b') },
  });

type Move = { kind: 'demote' | 'delete'; target: 'A' | 'B' };

function play(api: RawClient, round: { tenantId: string; A: string; B: string }, move: Move) {
  const params = { tenantId: round.tenantId, tenantMembershipId: round[move.target] };
  return move.kind === 'demote'
    ? api.memberships.update({ params, body: { role: 'ADMIN' } })
    : api.memberships.remove({ params });
}

const PAIRS: [Move, Move][] = [
  [
    { kind: 'demote', target: 'A' },
    { kind: 'delete', target: 'B' },
  ],
  [
    { kind: 'delete', target: 'A' },
    { kind: 'delete', target: 'B' },
  ],
  [
    { kind: 'demote', target: 'A' },
    { kind: 'demote', target: 'B' },
  ],
];

const describeAnswers = (answers: AnyResponse[]) =>
  answers.map((r) => `${r.status} ${errorCodeOf(r) ?? ''}`.trim()).join(', ');

describe('two server processes on one PostgreSQL', () => {
  it(`keep an OWNER in every tenant when last-owner requests race across them (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const round = await twoOwners();
      const [first, second] = PAIRS[i % PAIRS.length] ?? [];
      if (!first || !second) throw new Error('no pair');
      // Alternate which process gets which request, so neither is always the early one.
      const [p, q] = i % 2 === 0 ? apis : [apis[1], apis[0]];
      const answers = await Promise.all([play(p, round, first), play(q, round, second)]);
      const context = `round ${i}: ${describeAnswers(answers)}`;

      const rows = await sql<{ id: string; role: string; version: number }[]>`
        select id, role::text, version from tenant_memberships where tenant_id = ${round.tenantId}`;
      const target = (move: Move) => ({ kind: move.kind, membershipId: round[move.target] });
      expectOneLastOwnerRefusal([target(first), target(second)], answers, rows, context);
    }
  });

  it('let exactly one of 10 identical creates split across them succeed (10 rounds)', async () => {
    for (let i = 0; i < 10; i++) {
      const round = await twoOwners();
      const body = { role: 'STUDENT' as const, email: uniqueEmail('dup') };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          (n % 2 === 0 ? apis[0] : apis[1]).memberships.create({
            params: { tenantId: round.tenantId },
            body,
          }),
        ),
      );
      const context = `round ${i}: ${describeAnswers(answers)}`;
      expect(
        answers.filter((r) => r.status === 201),
        context,
      ).toHaveLength(1);
      expect(
        answers.filter((r) => errorCodeOf(r) === 'MEMBERSHIP_ALREADY_EXISTS'),
        context,
      ).toHaveLength(9);
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from tenant_memberships m join users u on u.id = m.user_id
        where m.tenant_id = ${round.tenantId} and lower(u.email) = lower(${body.email})`;
      expect(row?.n, context).toBe(1);
    }
  });

  it('invite one new email into two tenants at once, one per process, as one user', async () => {
    for (let i = 0; i < 10; i++) {
      const [t1, t2] = await Promise.all([twoOwners(), twoOwners()]);
      const body = { role: 'TEACHER' as const, email: uniqueEmail('shared') };
      const answers = await Promise.all([
        apis[0].memberships.create({ params: { tenantId: t1.tenantId }, body }),
        apis[1].memberships.create({ params: { tenantId: t2.tenantId }, body }),
      ]);
      const userIds = answers.map((r) => (r.status === 201 ? r.body.data.userId : `status ${r.status}`));
      expect(userIds[0], `round ${i}`).toMatch(/^[0-9a-f-]{36}$/);
      expect(userIds[1], `round ${i}`).toBe(userIds[0]);
    }
  });
});
