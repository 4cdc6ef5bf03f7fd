import { createRawClient, type RawClient } from '@tms/client';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { type AnyResponse, errorCodeOf } from '../support/memberships.js';
import { seedTwoOwners, startTwoServers, type TwoServers } from './two-servers.js';

// The last-owner rule counts ACTIVE OWNERs, and a suspension takes one away as surely as a
// demotion does. Two processes share no memory: only the tenant's row lock, taken by every
// membership write before it reads anything, keeps two such requests from each seeing the other
// OWNER still ACTIVE and both going through.
const ROUNDS_PER_PAIR = 40;
let servers: TwoServers;
let sql: postgres.Sql;
let apis: TwoServers['apis'];

beforeAll(async () => {
  // Hundreds of rounds by one super administrator: the rate limit is not under test here.
  servers = await startTwoServers({ RATE_LIMIT_MAX: '0' });
  ({ apis, sql } = servers);
}, 60_000);

afterAll(() => servers?.stop(), 30_000);

type Owner = 'A' | 'B';
type Round = { tenantId: string; ids: Record<Owner, string>; self: Record<Owner, [RawClient, RawClient]> };

/** A signed-in person, with a client on each process. */
async function person(): Promise<{ userId: string; clients: [RawClient, RawClient] }> {
  const token = await servers.token({ sub: unique('owner') });
  const clients = servers.baseUrls.map((baseUrl) => createRawClient({ baseUrl, token })) as [
    RawClient,
    RawClient,
  ];
  const me = await clients[0].me.get();
  if (me.status !== 200) throw new Error(`sign-in answered ${me.status}`);
  return { userId: me.body.data.user.userId, clients };
}

/** A fresh tenant with exactly two ACTIVE OWNERs, A and B, seeded through HTTP. */
async function twoOwners(): Promise<Round> {
  const [a, b] = [await person(), await person()];
  const { tenantId, ...ids } = await seedTwoOwners(servers, unique('suspend-race'), {
    A: { userId: a.userId },
    B: { userId: b.userId },
  });
  return { tenantId, ids, self: { A: a.clients, B: b.clients } };
}

type Move = { kind: 'suspend' | 'demote'; target: Owner; by: 'superAdmin' | 'itself' };

/** Sends `move` to the process numbered `p`. */
function play(round: Round, move: Move, p: 0 | 1): Promise<AnyResponse> {
  const api = move.by === 'superAdmin' ? apis[p] : round.self[move.target][p];
  const params = { tenantId: round.tenantId, tenantMembershipId: round.ids[move.target] };
  return move.kind === 'suspend'
    ? api.memberships.suspend({ params, body: { reason: 'race' } })
    : api.memberships.update({ params, body: { role: 'ADMIN' } });
}

const sa = (kind: Move['kind'], target: Owner): Move => ({ kind, target, by: 'superAdmin' });
const self = (kind: Move['kind'], target: Owner): Move => ({ kind, target, by: 'itself' });

type Row = { id: string; role: string; suspended: boolean; version: number };

/** What a move did to its membership: refused, untouched; otherwise suspended, or an ADMIN. */
function expectOutcome(move: Move, answer: AnyResponse | undefined, row: Row | undefined, context: string) {
  if (answer?.status === 409) {
    expect(row, context).toMatchObject({ role: 'OWNER', suspended: false, version: 1 });
    return;
  }
  expect(answer?.status, context).toBe(200);
  expect(row, context).toMatchObject(
    move.kind === 'suspend'
      ? { role: 'OWNER', suspended: true, version: 2 }
      : { role: 'ADMIN', suspended: false, version: 2 },
  );
}

describe('suspend against demote of the last two ACTIVE OWNERs, across two processes', () => {
  it.each([
    ['suspend A | demote B', sa('suspend', 'A'), sa('demote', 'B')],
    ['demote A | suspend B', sa('demote', 'A'), sa('suspend', 'B')],
    ['suspend A | suspend B', sa('suspend', 'A'), sa('suspend', 'B')],
    ['A suspends itself | B demotes itself', self('suspend', 'A'), self('demote', 'B')],
    ['A demotes itself | B suspends itself', self('demote', 'A'), self('suspend', 'B')],
  ])(
    `%s: one wins, the other is refused LAST_OWNER (${ROUNDS_PER_PAIR} rounds)`,
    async (_label, first, second) => {
      for (let i = 0; i < ROUNDS_PER_PAIR; i++) {
        const round = await twoOwners();
        // Alternate which process gets which request, so neither is always the early one.
        const [p, q]: [0 | 1, 0 | 1] = i % 2 === 0 ? [0, 1] : [1, 0];
        const answers = await Promise.all([play(round, first, p), play(round, second, q)]);
        const context = `round ${i}: ${answers.map((r) => `${r.status} ${errorCodeOf(r) ?? ''}`).join(', ')}`;

        const rows = await sql<Row[]>`
        select id, role::text, suspended_at is not null as suspended, version
        from tenant_memberships where tenant_id = ${round.tenantId}`;
        const activeOwners = rows.filter((r) => r.role === 'OWNER' && !r.suspended);
        expect(activeOwners, context).toHaveLength(1);
        expect(answers.map((r) => r.status).sort(), context).toEqual([200, 409]);
        expect(
          answers.filter((r) => errorCodeOf(r) === 'LAST_OWNER'),
          context,
        ).toHaveLength(1);
        [first, second].forEach((move, n) => {
          expectOutcome(
            move,
            answers[n],
            rows.find((r) => r.id === round.ids[move.target]),
            context,
          );
        });
      }
    },
  );
});
