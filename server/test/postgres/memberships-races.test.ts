import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import {
  type AnyResponse,
  errorCodeOf,
  expectOneLastOwnerRefusal,
  type TwoOwners,
  tenantState,
  twoOwners,
} from '../support/memberships.js';

// PostgreSQL only (this folder runs when TEST_DATABASE_URL is set): PGlite has one connection, so
// it runs the two transactions one after the other and would pass even without the tenant row
// lock these races exist to prove. On PostgreSQL they truly overlap.
const ROUNDS = 100;

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

type Owner = 'A' | 'B';
type Move = { by: Owner | 'superAdmin'; kind: 'demote' | 'delete'; target: Owner };

function play(round: TwoOwners, move: Move): Promise<AnyResponse> {
  const api = move.by === 'superAdmin' ? superAdmin.api : round.owners[move.by].actor.api;
  const params = { tenantId: round.tenantId, tenantMembershipId: round.owners[move.target].membershipId };
  return move.kind === 'demote'
    ? api.memberships.update({ params, body: { role: 'ADMIN' } })
    : api.memberships.remove({ params });
}

const sa = (kind: Move['kind'], target: Owner): Move => ({ by: 'superAdmin', kind, target });
const self = (kind: Move['kind'], target: Owner): Move => ({ by: target, kind, target });

describe('two OWNERs, two conflicting requests at once: exactly one is refused LAST_OWNER', () => {
  it.each([
    ['demote A | delete B', sa('demote', 'A'), sa('delete', 'B')],
    ['delete A | delete B', sa('delete', 'A'), sa('delete', 'B')],
    ['demote A | demote B', sa('demote', 'A'), sa('demote', 'B')],
    ['A demotes itself | B deletes itself', self('demote', 'A'), self('delete', 'B')],
    ['A deletes itself | B deletes itself', self('delete', 'A'), self('delete', 'B')],
  ])(`%s (${ROUNDS} rounds)`, async (_label, first, second) => {
    for (let i = 0; i < ROUNDS; i++) {
      const round = await twoOwners(h);
      const answers = await Promise.all([play(round, first), play(round, second)]);
      const state = await tenantState(h.db, round.tenantId);
      const context = `round ${i}: ${answers.map((r) => `${r.status} ${errorCodeOf(r) ?? ''}`).join(', ')}`;

      const target = (move: Move) => ({
        kind: move.kind,
        membershipId: round.owners[move.target].membershipId,
      });
      expectOneLastOwnerRefusal([target(first), target(second)], answers, state, context);
    }
  });

  it(`two OWNERs demoting each other: one wins, the other is refused for the role it lost (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const round = await twoOwners(h);
      const answers = await Promise.all([
        play(round, { by: 'A', kind: 'demote', target: 'B' }),
        play(round, { by: 'B', kind: 'demote', target: 'A' }),
      ]);
      const context = `round ${i}: ${answers.map((r) => `${r.status} ${errorCodeOf(r) ?? ''}`).join(', ')}`;
      // The loser is an ADMIN by the time its turn comes, and an ADMIN may not touch an OWNER.
      expect(answers.map((r) => r.status).sort(), context).toEqual([200, 403]);
      expect(answers.map(errorCodeOf), context).toContain('ROLE_HIERARCHY_VIOLATION');
      const roles = (await tenantState(h.db, round.tenantId)).map((m) => m.role).sort();
      expect(roles, context).toEqual(['ADMIN', 'OWNER']);
    }
  });
});
