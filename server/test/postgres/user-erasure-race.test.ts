import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { type AnyResponse, errorCodeOf, type TwoOwners, twoOwners } from '../support/memberships.js';

// PostgreSQL only: on PGlite's one connection the two requests would run one after the other. The
// erasure locks the tenants of the user before it counts their ACTIVE OWNERs, as every membership
// writer locks its tenant before it reads: so one of the two requests always sees the other's
// outcome, and the tenant never ends without an ACTIVE OWNER.
const ROUNDS = 30;

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

type Move = 'demote B' | 'remove B' | 'suspend B' | 'B demotes itself' | 'B removes itself' | 'erase B';

function play(round: TwoOwners, move: Move): Promise<AnyResponse> {
  const api = move.startsWith('B ') ? round.owners.B.actor.api : superAdmin.api;
  const params = { tenantId: round.tenantId, tenantMembershipId: round.owners.B.membershipId };
  if (move === 'erase B')
    return superAdmin.api.users.erase({ params: { userId: round.owners.B.actor.userId } });
  if (move === 'suspend B') return api.memberships.suspend({ params, body: {} });
  if (move.includes('remove')) return api.memberships.remove({ params });
  return api.memberships.update({ params, body: { role: 'ADMIN' } });
}

type Row = { user_id: string; role: string; active: boolean };

describe('erasing an OWNER while the other OWNER is demoted, suspended, removed or erased', () => {
  it.each<Move>(['demote B', 'remove B', 'suspend B', 'B demotes itself', 'B removes itself', 'erase B'])(
    `erase A | %s: one goes through, the other is refused LAST_OWNER (${ROUNDS} rounds)`,
    async (move) => {
      for (let i = 0; i < ROUNDS; i++) {
        const round = await twoOwners(h);
        const erase = () => superAdmin.api.users.erase({ params: { userId: round.owners.A.actor.userId } });
        // Alternate which request is sent first, so that neither is always the early one.
        const [erased, other] =
          i % 2 === 0
            ? await Promise.all([erase(), play(round, move)])
            : await Promise.all([play(round, move), erase()]).then(([o, e]) => [e, o] as const);
        const context = `round ${i}: erase ${erased.status} ${errorCodeOf(erased) ?? ''}, ${move} ${other.status} ${errorCodeOf(other) ?? ''}`;

        const result = await h.db.execute(sql`
        select user_id, role::text as role, (suspended_at is null) as active
        from tenant_memberships where tenant_id = ${round.tenantId}`);
        const rows = (Array.isArray(result) ? result : (result as unknown as { rows: Row[] }).rows) as Row[];
        const activeOwners = rows.filter((r) => r.role === 'OWNER' && r.active);
        expect(activeOwners, context).toHaveLength(1);
        const refused = [erased, other].filter((r) => r.status === 409);
        expect(refused.map(errorCodeOf), context).toEqual(['LAST_OWNER']);
        expect(
          [erased, other].filter((r) => r.status < 300),
          context,
        ).toHaveLength(1);
        // The one who stays is the one whose request was refused, or who was not touched.
        const staying = erased.status === 204 ? round.owners.B.actor.userId : round.owners.A.actor.userId;
        expect(activeOwners[0]?.user_id, context).toBe(staying);
      }
    },
  );
});
