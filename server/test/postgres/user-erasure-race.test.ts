import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, addMember, createSuperAdmin, createTenantFixture } from '../factories.js';
import { startTestServer, type TestServer } from '../harness.js';
import { type AnyResponse, errorCodeOf } from '../membership-helpers.js';

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

/** A fresh tenant with two ACTIVE OWNERs: A, whom the super administrator erases, and B. */
async function twoOwners() {
  const t = await createTenantFixture(h);
  const b = await addMember(h, t.tenantId, 'OWNER');
  return {
    tenantId: t.tenantId,
    a: { actor: t.owner, membershipId: t.ownerMembershipId },
    b: { actor: b.actor, membershipId: b.membershipId },
  };
}
type Round = Awaited<ReturnType<typeof twoOwners>>;

type Move = 'demote B' | 'remove B' | 'suspend B' | 'B demotes itself' | 'B removes itself' | 'erase B';

function play(round: Round, move: Move): Promise<AnyResponse> {
  const api = move.startsWith('B ') ? round.b.actor.api : superAdmin.api;
  const params = { tenantId: round.tenantId, tenantMembershipId: round.b.membershipId };
  if (move === 'erase B') return superAdmin.api.users.erase({ params: { userId: round.b.actor.userId } });
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
        const round = await twoOwners();
        const erase = () => superAdmin.api.users.erase({ params: { userId: round.a.actor.userId } });
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
        const staying = erased.status === 204 ? round.b.actor.userId : round.a.actor.userId;
        expect(activeOwners[0]?.user_id, context).toBe(staying);
      }
    },
  );
});
