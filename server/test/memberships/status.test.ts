import { type Client, createClient, isApiError } from '@tms/client';
import { MembershipSchema, MeSchema } from '@tms/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships } from '../../src/db/schema.js';
import {
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { callRoute, expectError, ROUTES, SUCCESS, tenantState, uniqueEmail } from '../support/memberships.js';
import { sdkOf } from '../support/sdk.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const ids = (tenantId: string, tenantMembershipId: string) => ({ tenantId, tenantMembershipId });
const DAY = 24 * 60 * 60 * 1000;
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY);

/** Term dates written behind the API's back: how time passing looks to the service. */
async function setTerm(id: string, term: { startsAt?: Date | null; endsAt?: Date | null }) {
  await h.db.update(tenantMemberships).set(term).where(eq(tenantMemberships.id, id));
}

async function caughtCode(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isApiError(error) ? error.code : `no ApiError: ${String(error)}`;
}

describe('a membership as it was before statuses existed', () => {
  it('reads ACTIVE with no dates: one written with the old columns only, and one made through the API', async () => {
    const t = await createTenantFixture(h);
    // The factory writes the columns there were before migration 0006, and leaves the new ones be.
    const old = await addMember(h, t.tenantId, 'TEACHER');
    const made = await sdkOf(h, t.owner).memberships.create(t.tenantId, {
      role: 'STUDENT',
      email: uniqueEmail(),
    });
    const untouched = {
      status: 'ACTIVE',
      startsAt: null,
      endsAt: null,
      suspendedAt: null,
      suspensionReason: null,
    };
    expect(made).toMatchObject(untouched);
    for (const id of [old.membershipId, made.tenantMembershipId, t.ownerMembershipId]) {
      const got = await sdkOf(h, t.owner).memberships.get(t.tenantId, id);
      expect(MembershipSchema.strict().parse(got)).toMatchObject(untouched);
    }
    const me = MeSchema.parse(await sdkOf(h, old.actor).me());
    expect(me.memberships).toEqual([
      expect.objectContaining({ status: 'ACTIVE', startsAt: null, endsAt: null }),
    ]);
  });
});

describe('suspend and reactivate, through the SDK', () => {
  it('suspend: SUSPENDED with its reason, role and everything else kept; again: unchanged', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'TEACHER');
    const sdk = sdkOf(h, t.owner);
    const suspended = await sdk.memberships.suspend(t.tenantId, member.membershipId, {
      reason: '  unpaid fees ',
    });
    expect(suspended).toMatchObject({
      role: 'TEACHER',
      status: 'SUSPENDED',
      suspensionReason: 'unpaid fees',
      version: 2,
      startsAt: null,
      endsAt: null,
    });
    expect(Date.parse(suspended.suspendedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const again = await sdk.memberships.suspend(t.tenantId, member.membershipId, { reason: 'another' });
    expect(again).toEqual(suspended);
    expect(await sdk.memberships.get(t.tenantId, member.membershipId)).toEqual(suspended);
  });

  it('reactivate: ACTIVE with its role, the suspension gone; again: unchanged', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'ADMIN');
    const sdk = sdkOf(h, t.owner);
    await sdk.memberships.suspend(t.tenantId, member.membershipId);
    const back = await sdk.memberships.reactivate(t.tenantId, member.membershipId, { ifMatch: 2 });
    expect(back).toMatchObject({
      role: 'ADMIN',
      status: 'ACTIVE',
      suspendedAt: null,
      suspensionReason: null,
      version: 3,
    });
    expect(await sdk.memberships.reactivate(t.tenantId, member.membershipId)).toEqual(back);
  });

  it('reactivate lifts whatever keeps it from being ACTIVE now: a passed end, a start to come; other dates stay', async () => {
    const t = await createTenantFixture(h);
    const sdk = sdkOf(h, t.owner);
    const ended = await addMember(h, t.tenantId, 'STUDENT');
    const [began, passed] = [daysFromNow(-30), daysFromNow(-1)];
    await setTerm(ended.membershipId, { startsAt: began, endsAt: passed });
    await sdk.memberships.suspend(t.tenantId, ended.membershipId);
    const endedBack = await sdk.memberships.reactivate(t.tenantId, ended.membershipId);
    expect(endedBack).toMatchObject({
      status: 'ACTIVE',
      startsAt: began.toISOString(),
      endsAt: null,
      suspendedAt: null,
    });

    const scheduled = await addMember(h, t.tenantId, 'STUDENT');
    const [starts, ends] = [daysFromNow(3), daysFromNow(90)];
    await setTerm(scheduled.membershipId, { startsAt: starts, endsAt: ends });
    expect((await sdk.memberships.get(t.tenantId, scheduled.membershipId)).status).toBe('SCHEDULED');
    const scheduledBack = await sdk.memberships.reactivate(t.tenantId, scheduled.membershipId);
    expect(scheduledBack).toMatchObject({ status: 'ACTIVE', startsAt: null, endsAt: ends.toISOString() });
  });

  it('a stale If-Match: 412, nothing changed; a membership of another tenant: 404', async () => {
    const t = await createTenantFixture(h);
    const other = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'TEACHER');
    const sdk = sdkOf(h, t.owner);
    const before = await tenantState(h.db, t.tenantId);
    expect(
      await caughtCode(sdk.memberships.suspend(t.tenantId, member.membershipId, {}, { ifMatch: 7 })),
    ).toBe('PRECONDITION_FAILED');
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    for (const call of [
      sdk.memberships.suspend(t.tenantId, other.ownerMembershipId),
      sdk.memberships.reactivate(t.tenantId, other.ownerMembershipId),
    ])
      expect(await caughtCode(call)).toBe('MEMBERSHIP_NOT_FOUND');
    expect(
      (await sdkOf(h, other.owner).memberships.get(other.tenantId, other.ownerMembershipId)).status,
    ).toBe('ACTIVE');
  });

  it('the hierarchy: an ADMIN may suspend a TEACHER or an ADMIN, not an OWNER, and may not reactivate one', async () => {
    const t = await createTenantFixture(h);
    const admin = await addMember(h, t.tenantId, 'ADMIN');
    const [teacher, peer, owner] = [
      await addMember(h, t.tenantId, 'TEACHER'),
      await addMember(h, t.tenantId, 'ADMIN'),
      await addMember(h, t.tenantId, 'OWNER'),
    ];
    const sdk = sdkOf(h, admin.actor);
    for (const m of [teacher, peer])
      expect((await sdk.memberships.suspend(t.tenantId, m.membershipId)).status).toBe('SUSPENDED');
    expect(await caughtCode(sdk.memberships.suspend(t.tenantId, owner.membershipId))).toBe(
      'ROLE_HIERARCHY_VIOLATION',
    );
    await sdkOf(h, t.owner).memberships.suspend(t.tenantId, owner.membershipId);
    expect(await caughtCode(sdk.memberships.reactivate(t.tenantId, owner.membershipId))).toBe(
      'ROLE_HIERARCHY_VIOLATION',
    );
    expect((await sdkOf(h, t.owner).memberships.get(t.tenantId, owner.membershipId)).status).toBe(
      'SUSPENDED',
    );
  });
});

describe('only an ACTIVE membership opens the tenant', () => {
  type Step = (by: Client, tenantId: string, membershipId: string) => Promise<unknown>;
  const states: [string, Step, Step][] = [
    [
      'SUSPENDED, until reactivated',
      (by, tenantId, id) => by.memberships.suspend(tenantId, id),
      (by, tenantId, id) => by.memberships.reactivate(tenantId, id),
    ],
    [
      'SCHEDULED, until its start comes',
      (by, tenantId, id) => by.memberships.update(tenantId, id, { startsAt: daysFromNow(2).toISOString() }),
      (_by, _tenantId, id) => setTerm(id, { startsAt: daysFromNow(-1) }),
    ],
    [
      'ENDED, until its end is lifted',
      (by, tenantId, id) => by.memberships.update(tenantId, id, { endsAt: daysFromNow(-1).toISOString() }),
      (by, tenantId, id) => by.memberships.update(tenantId, id, { endsAt: null }),
    ],
  ];

  it.each(states)(
    'an ADMIN %s: refused like a non-member on every membership route',
    async (_label, make, lift) => {
      const t = await createTenantFixture(h);
      const admin = await addMember(h, t.tenantId, 'ADMIN');
      const stranger = await createActor(h);
      await make(sdkOf(h, t.owner), t.tenantId, admin.membershipId);
      for (const route of ROUTES) {
        const target = {
          tenantId: t.tenantId,
          membershipId: (await addMember(h, t.tenantId, 'STUDENT')).membershipId,
        };
        expectError(await callRoute(admin.actor.api, route, target), 403, 'TENANT_ACCESS_DENIED');
        expectError(await callRoute(stranger.api, route, target), 403, 'TENANT_ACCESS_DENIED');
      }
      for (const call of [
        admin.actor.api.memberships.suspend({ params: ids(t.tenantId, t.ownerMembershipId), body: {} }),
        admin.actor.api.memberships.reactivate({ params: ids(t.tenantId, admin.membershipId), body: {} }),
      ])
        expectError(await call, 403, 'TENANT_ACCESS_DENIED');
      await lift(sdkOf(h, t.owner), t.tenantId, admin.membershipId);
      for (const route of ROUTES) {
        const target = {
          tenantId: t.tenantId,
          membershipId: (await addMember(h, t.tenantId, 'STUDENT')).membershipId,
        };
        expect((await callRoute(admin.actor.api, route, target)).status, route).toBe(SUCCESS[route]);
      }
    },
  );
});

describe('the last ACTIVE OWNER', () => {
  it.each(['the OWNER itself', 'a super administrator'])(
    'cannot be suspended, by %s: 409 LAST_OWNER',
    async (who) => {
      const t = await createTenantFixture(h);
      const by = who === 'the OWNER itself' ? t.owner : await createSuperAdmin(h);
      const before = await tenantState(h.db, t.tenantId);
      expect(await caughtCode(sdkOf(h, by).memberships.suspend(t.tenantId, t.ownerMembershipId))).toBe(
        'LAST_OWNER',
      );
      expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    },
  );

  it('a suspended OWNER does not count: the one ACTIVE OWNER left may be neither suspended, demoted nor removed', async () => {
    const t = await createTenantFixture(h);
    const second = await addMember(h, t.tenantId, 'OWNER');
    const sdk = sdkOf(h, t.owner);
    expect((await sdk.memberships.suspend(t.tenantId, second.membershipId)).status).toBe('SUSPENDED');
    const before = await tenantState(h.db, t.tenantId);
    const params = ids(t.tenantId, t.ownerMembershipId);
    expect(await caughtCode(sdk.memberships.suspend(t.tenantId, t.ownerMembershipId))).toBe('LAST_OWNER');
    expectError(await t.owner.api.memberships.update({ params, body: { role: 'ADMIN' } }), 409, 'LAST_OWNER');
    expectError(await t.owner.api.memberships.remove({ params }), 409, 'LAST_OWNER');
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    // The suspended OWNER itself may go: the ACTIVE one stays.
    expect((await sdk.memberships.update(t.tenantId, second.membershipId, { role: 'ADMIN' })).role).toBe(
      'ADMIN',
    );
    await sdk.memberships.remove(t.tenantId, second.membershipId);
    expect((await sdk.memberships.get(t.tenantId, t.ownerMembershipId)).status).toBe('ACTIVE');
  });

  it('with two ACTIVE OWNERs, one may be suspended; reactivated, the other may then be', async () => {
    const t = await createTenantFixture(h);
    const second = await addMember(h, t.tenantId, 'OWNER');
    const sdk = sdkOf(h, t.owner);
    await sdk.memberships.suspend(t.tenantId, second.membershipId);
    await sdk.memberships.reactivate(t.tenantId, second.membershipId);
    const self = await sdk.memberships.suspend(t.tenantId, t.ownerMembershipId, { reason: 'on leave' });
    expect(self).toMatchObject({ role: 'OWNER', status: 'SUSPENDED', suspensionReason: 'on leave' });
    // Suspended, the first OWNER is refused like a stranger: the suspension took effect at once.
    expect(await caughtCode(sdk.memberships.list(t.tenantId))).toBe('TENANT_ACCESS_DENIED');
  });

  it.each(['ADMIN', 'OWNER'] as const)(
    'a suspended %s who claims the invitation of the only ACTIVE OWNER takes its standing: the tenant keeps one',
    async (role) => {
      const superAdmin = await createSuperAdmin(h);
      const email = uniqueEmail('claimed');
      const subject = unique('claimant');
      const signIn = async (emailVerified: boolean) =>
        createClient({ baseUrl: h.baseUrl, token: await h.token(subject, { email, emailVerified }) }).me();
      const person = await signIn(false);
      const slug = unique('claim');
      const sdk = sdkOf(h, superAdmin);
      const tenant = await sdk.tenants.create({ name: slug, slug, owner: { email } });
      const mine = await sdk.memberships.create(tenant.tenantId, { role, userId: person.user.userId });
      await sdk.memberships.suspend(tenant.tenantId, mine.tenantMembershipId);

      const claimed = await signIn(true);
      expect(claimed.user.userId).toBe(person.user.userId);
      expect(claimed.memberships).toEqual([
        expect.objectContaining({ tenantId: tenant.tenantId, role: 'OWNER', status: 'ACTIVE' }),
      ]);
      const owners = await sdk.memberships.list(tenant.tenantId, { role: 'OWNER', status: 'ACTIVE' });
      expect(owners.items.map((m) => m.userId)).toEqual([person.user.userId]);
    },
  );
});
