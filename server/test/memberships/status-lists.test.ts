import { MeSchema } from '@tms/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships, tenants } from '../../src/db/schema.js';
import { addMember, createActor, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const DAY = 24 * 60 * 60 * 1000;
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY);

/** Term dates written behind the API's back: how time passing looks to the service. */
async function setTerm(id: string, term: { startsAt?: Date | null; endsAt?: Date | null }) {
  await h.db.update(tenantMemberships).set(term).where(eq(tenantMemberships.id, id));
}

describe('lists filtered by status, and /me', () => {
  it('?status= one or several (the key repeated): the matching members, pages and totals', async () => {
    const t = await createTenantFixture(h);
    const sdk = sdkOf(h, t.owner);
    const [a, b, c, d] = [
      await addMember(h, t.tenantId, 'STUDENT'),
      await addMember(h, t.tenantId, 'STUDENT'),
      await addMember(h, t.tenantId, 'TEACHER'),
      await addMember(h, t.tenantId, 'STUDENT'),
    ];
    await sdk.memberships.suspend(t.tenantId, a.membershipId);
    await sdk.memberships.suspend(t.tenantId, c.membershipId);
    await setTerm(b.membershipId, { endsAt: daysFromNow(-1) });
    await setTerm(d.membershipId, { startsAt: daysFromNow(1) });
    const idsOf = async (query: Parameters<typeof sdk.memberships.list>[1]) => {
      const found: string[] = [];
      for await (const m of sdk.memberships.listAll(t.tenantId, { ...query, limit: 1 }))
        found.push(m.tenantMembershipId);
      return found;
    };
    expect(await idsOf({ status: 'SUSPENDED' })).toEqual([a.membershipId, c.membershipId]);
    expect(await idsOf({ status: ['ENDED', 'SCHEDULED'] })).toEqual([b.membershipId, d.membershipId]);
    expect(await idsOf({ status: ['ACTIVE', 'SUSPENDED'], role: 'STUDENT' })).toEqual([a.membershipId]);
    expect(await idsOf({ status: 'SUSPENDED', sort: '-createdAt' })).toEqual([
      c.membershipId,
      a.membershipId,
    ]);
    expect(await idsOf({ status: 'ACTIVE', sort: 'email' })).toEqual([t.ownerMembershipId]);
    const counted = await sdk.memberships.list(t.tenantId, {
      status: ['SUSPENDED', 'ENDED'],
      includeTotal: true,
    });
    expect(counted.total).toBe(3);
    expect(counted.items.map((m) => m.status)).toEqual(['SUSPENDED', 'ENDED', 'SUSPENDED']);
  });

  it('an unknown status, or an empty one: 400 VALIDATION_FAILED naming query.status', async () => {
    const t = await createTenantFixture(h);
    for (const query of [
      'status=active',
      'status=DELETED',
      'status=ACTIVE&status=NOPE',
      'status=',
      'status=ACTIVE,SUSPENDED',
    ]) {
      const res = await fetch(`${h.baseUrl}/tenants/${t.tenantId}/memberships?${query}`, {
        headers: { authorization: `Bearer ${t.owner.token}` },
      });
      const body = (await res.json()) as { error: { code: string; details: { path: string }[] } };
      expect({ status: res.status, code: body.error.code }, query).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
      expect(body.error.details.map((d) => d.path)).toContain('query.status');
    }
  });

  it('/me shows every membership with its status and dates, but none of a deleted tenant', async () => {
    const person = await createActor(h);
    const [active, suspended, scheduled, ended, gone] = [
      await createTenantFixture(h),
      await createTenantFixture(h),
      await createTenantFixture(h),
      await createTenantFixture(h),
      await createTenantFixture(h),
    ];
    const ms = {
      active: await addMember(h, active.tenantId, 'STUDENT', person),
      suspended: await addMember(h, suspended.tenantId, 'ADMIN', person),
      scheduled: await addMember(h, scheduled.tenantId, 'TEACHER', person),
      ended: await addMember(h, ended.tenantId, 'STUDENT', person),
    };
    await addMember(h, gone.tenantId, 'ADMIN', person);
    await sdkOf(h, suspended.owner).memberships.suspend(suspended.tenantId, ms.suspended.membershipId, {
      reason: 'x',
    });
    const starts = daysFromNow(5);
    await setTerm(ms.scheduled.membershipId, { startsAt: starts });
    const ends = daysFromNow(-5);
    await setTerm(ms.ended.membershipId, { endsAt: ends });
    await h.db.update(tenants).set({ deletedAt: new Date() }).where(eq(tenants.id, gone.tenantId));

    const me = MeSchema.strict().parse(await sdkOf(h, person).me());
    expect(
      me.memberships.map(({ tenantMembershipId, status, startsAt, endsAt }) => ({
        id: tenantMembershipId,
        status,
        startsAt,
        endsAt,
      })),
    ).toEqual([
      { id: ms.active.membershipId, status: 'ACTIVE', startsAt: null, endsAt: null },
      { id: ms.suspended.membershipId, status: 'SUSPENDED', startsAt: null, endsAt: null },
      { id: ms.scheduled.membershipId, status: 'SCHEDULED', startsAt: starts.toISOString(), endsAt: null },
      { id: ms.ended.membershipId, status: 'ENDED', startsAt: null, endsAt: ends.toISOString() },
    ]);
    // The admin's note is theirs: the member's own view does not carry it.
    expect(JSON.stringify(me)).not.toContain('suspension');
  });
});
