import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCodes, joinRequests, tenantMemberships } from '../../src/db/schema.js';
import { codeOf, schoolOf } from '../joining/helpers.js';
import { type Actor, createActor } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { decided, errorCodeOf } from '../support/memberships.js';

// PostgreSQL only (this folder runs when TEST_DATABASE_URL is set): PGlite runs one transaction at
// a time, so these would pass even without the tenant lock that POST /join, approvals and cancels
// take. On PostgreSQL the requests truly overlap.
const PEOPLE = 24;
const MAX_USES = 5;
const ROUNDS = 30;

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

describe('join codes under concurrent redemption', () => {
  it(`${PEOPLE} people redeeming a code of maxUses ${MAX_USES} at once: exactly ${MAX_USES} get in`, async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school, { maxUses: MAX_USES });
    const people: Actor[] = [];
    for (let i = 0; i < PEOPLE; i++) people.push(await createActor(h));
    const answers = await Promise.all(
      people.map((person) => decided(() => person.api.joinCodes.join({ body: { code: code.code } }))),
    );
    const statuses = answers.map((res) => `${res.status} ${errorCodeOf(res) ?? ''}`.trim());
    expect(
      statuses.filter((s) => s === '201'),
      statuses.join(', '),
    ).toHaveLength(MAX_USES);
    expect(statuses.filter((s) => s === '404 JOIN_CODE_NOT_FOUND')).toHaveLength(PEOPLE - MAX_USES);
    const members = await h.db
      .select({ userId: tenantMemberships.userId })
      .from(tenantMemberships)
      .where(eq(tenantMemberships.tenantId, school.tenantId));
    const joined = people.filter((person) => members.some((m) => m.userId === person.userId));
    expect(joined).toHaveLength(MAX_USES);
    const [row] = await h.db
      .select({ uses: joinCodes.uses })
      .from(joinCodes)
      .where(and(eq(joinCodes.tenantId, school.tenantId), eq(joinCodes.id, code.joinCodeId)));
    expect(row?.uses).toBe(MAX_USES);
  });

  it('one person redeeming the same code many times at once joins once and spends one use', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school, { maxUses: 3 });
    const person = await createActor(h);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        decided(() => person.api.joinCodes.join({ body: { code: code.code } })),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const [row] = await h.db
      .select({ uses: joinCodes.uses })
      .from(joinCodes)
      .where(and(eq(joinCodes.tenantId, school.tenantId), eq(joinCodes.id, code.joinCodeId)));
    expect(row?.uses).toBe(1);
  });
});

describe('a join request approved and cancelled at once', () => {
  it(`exactly one wins (${ROUNDS} rounds)`, async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school, { requiresApproval: true });
    for (let i = 0; i < ROUNDS; i++) {
      const person = await createActor(h);
      const asked = await person.api.joinCodes.join({ body: { code: code.code } });
      expect(asked.status).toBe(202);
      const { joinRequestId } = (asked.body as { data: { joinRequestId: string } }).data;
      const [approve, cancel] = await Promise.all([
        decided(() =>
          school.admin.api.joinRequests.approve({
            params: { tenantId: school.tenantId, joinRequestId },
            body: {},
          }),
        ),
        decided(() => person.api.joinRequests.cancel({ params: { joinRequestId }, body: {} })),
      ]);
      const context = `round ${i}: approve ${approve.status} ${errorCodeOf(approve) ?? ''}, cancel ${cancel.status} ${errorCodeOf(cancel) ?? ''}`;
      const won = [approve.status === 201, cancel.status === 200];
      expect(won.filter(Boolean), context).toHaveLength(1);
      const loser = won[0] ? cancel : approve;
      expect(loser.status, context).toBe(409);
      expect(errorCodeOf(loser), context).toBe('JOIN_REQUEST_NOT_PENDING');
      const [request] = await h.db
        .select({ status: joinRequests.status })
        .from(joinRequests)
        .where(and(eq(joinRequests.tenantId, school.tenantId), eq(joinRequests.id, joinRequestId)));
      const members = await h.db
        .select({ userId: tenantMemberships.userId })
        .from(tenantMemberships)
        .where(
          and(eq(tenantMemberships.tenantId, school.tenantId), eq(tenantMemberships.userId, person.userId)),
        );
      expect(request?.status, context).toBe(won[0] ? 'APPROVED' : 'CANCELLED');
      expect(members, context).toHaveLength(won[0] ? 1 : 0);
    }
  });
});
