import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastEvent, sdkAs, tenantEvents } from '../support/audit-events.js';
import {
  type Actor,
  addMember,
  createActor,
  createTenantFixture,
  type TenantFixture,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/** Each membership change writes its one event, in its transaction: before and after as the API shows them. */
let h: TestServer;
let t: TenantFixture;
let owner: Actor;
beforeAll(async () => {
  h = await startTestServer();
  t = await createTenantFixture(h);
  owner = t.owner;
});
afterAll(() => h?.close());

describe('membership changes in the audit trail', () => {
  it('records create, role change, term change, suspend, reactivate and remove, with actor and request id', async () => {
    const sdk = sdkAs(h, owner);
    const person = await createActor(h);
    const created = await sdk.memberships.create(t.tenantId, { userId: person.userId, role: 'STUDENT' });
    let event = await lastEvent(h, owner, t.tenantId);
    expect(event).toMatchObject({
      tenantId: t.tenantId,
      action: 'membership.created',
      actor: { userId: owner.userId, subject: owner.subject, isSuperAdmin: false },
      target: { type: 'membership', id: created.tenantMembershipId },
      before: null,
      after: created,
    });
    expect(event.requestId).toEqual(expect.any(String));

    const promoted = await sdk.memberships.update(t.tenantId, created.tenantMembershipId, {
      role: 'TEACHER',
    });
    event = await lastEvent(h, owner, t.tenantId);
    expect(event).toMatchObject({ action: 'membership.role_changed', before: created, after: promoted });

    const dated = await sdk.memberships.update(t.tenantId, created.tenantMembershipId, {
      endsAt: '2999-01-01T00:00:00.000Z',
    });
    event = await lastEvent(h, owner, t.tenantId);
    expect(event).toMatchObject({ action: 'membership.terms_changed', before: promoted, after: dated });

    const suspended = await sdk.memberships.suspend(t.tenantId, created.tenantMembershipId, {
      reason: 'fees',
    });
    event = await lastEvent(h, owner, t.tenantId);
    expect(event).toMatchObject({ action: 'membership.suspended', before: dated, after: suspended });

    const reactivated = await sdk.memberships.reactivate(t.tenantId, created.tenantMembershipId);
    event = await lastEvent(h, owner, t.tenantId);
    expect(event).toMatchObject({ action: 'membership.reactivated', before: suspended, after: reactivated });

    await sdk.memberships.remove(t.tenantId, created.tenantMembershipId);
    event = await lastEvent(h, owner, t.tenantId);
    expect(event).toMatchObject({ action: 'membership.removed', before: reactivated, after: null });
  });

  it('passes the X-Request-Id of the request on to its event', async () => {
    const person = await createActor(h);
    const res = await fetch(`${h.baseUrl}/tenants/${t.tenantId}/memberships`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner.token}`,
        'content-type': 'application/json',
        'x-request-id': 'audit-req-0001',
      },
      body: JSON.stringify({ userId: person.userId, role: 'STUDENT' }),
    });
    expect(res.status).toBe(201);
    expect((await lastEvent(h, owner, t.tenantId)).requestId).toBe('audit-req-0001');
  });

  it('writes no event for a refused change or a no-op, and no number is lost', async () => {
    const before = await tenantEvents(h, owner, t.tenantId);
    // The last OWNER cannot leave: the delete ran, was refused, and rolled back with its event.
    const refused = await owner.api.memberships.remove({
      params: { tenantId: t.tenantId, tenantMembershipId: t.ownerMembershipId },
    });
    expect(refused.status).toBe(409);
    const { membershipId } = await addMember(h, t.tenantId, 'STUDENT');
    const sdk = sdkAs(h, owner);
    await sdk.memberships.update(t.tenantId, membershipId, { role: 'STUDENT' });
    expect(await tenantEvents(h, owner, t.tenantId)).toEqual(before);
    await sdk.memberships.update(t.tenantId, membershipId, { role: 'TEACHER' });
    const after = await tenantEvents(h, owner, t.tenantId);
    expect(after.map((event) => event.sequence)).toEqual(after.map((_, i) => i + 1));
  });

  it('filters by action, actor, target and time, and pages newest first', async () => {
    const tenant = await createTenantFixture(h);
    const sdk = sdkAs(h, tenant.owner);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const person = await createActor(h);
      ids.push(
        (await sdk.memberships.create(tenant.tenantId, { userId: person.userId, role: 'STUDENT' }))
          .tenantMembershipId,
      );
    }
    await sdk.memberships.suspend(tenant.tenantId, ids[0] ?? '', {});
    const all = await tenantEvents(h, tenant.owner, tenant.tenantId);
    // tenant.created and the OWNER's membership.created (the fixture), five creations, one suspension.
    expect(all.map((event) => event.action)).toEqual([
      'tenant.created',
      'membership.created',
      ...Array(5).fill('membership.created'),
      'membership.suspended',
    ]);
    expect(all.map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    const page1 = await sdk.auditEvents.listForTenant(tenant.tenantId, { limit: 3 });
    expect(page1.items.map((event) => event.sequence)).toEqual([8, 7, 6]);
    const page2 = await sdk.auditEvents.listForTenant(tenant.tenantId, {
      limit: 3,
      cursor: page1.nextCursor ?? '',
    });
    expect(page2.items.map((event) => event.sequence)).toEqual([5, 4, 3]);

    const suspensions = await sdk.auditEvents.listForTenant(tenant.tenantId, {
      action: 'membership.suspended',
    });
    expect(suspensions.items.map((event) => event.target.id)).toEqual([ids[0]]);
    const ofOne = await sdk.auditEvents.listForTenant(tenant.tenantId, { targetId: ids[1] });
    expect(ofOne.items.map((event) => event.action)).toEqual(['membership.created']);
    const byOwner = await sdk.auditEvents.listForTenant(tenant.tenantId, {
      actorUserId: tenant.owner.userId,
    });
    expect(byOwner.items).toHaveLength(6);
    const future = await sdk.auditEvents.listForTenant(tenant.tenantId, {
      since: '2999-01-01T00:00:00.000Z',
    });
    expect(future.items).toEqual([]);
    const past = await sdk.auditEvents.listForTenant(tenant.tenantId, { until: '2000-01-01T00:00:00.000Z' });
    expect(past.items).toEqual([]);
    const now = await sdk.auditEvents.listForTenant(tenant.tenantId, {
      since: all[0]?.occurredAt,
      limit: 100,
    });
    expect(now.items).toHaveLength(8);
  });

  it('refuses a bad filter or cursor with a 400, and a tenant member who is not an admin with a 403', async () => {
    const bad = await owner.api.auditEvents.listForTenant({
      params: { tenantId: t.tenantId },
      query: { cursor: 'nope' },
    });
    expect(bad.status).toBe(400);
    const raw = await fetch(`${h.baseUrl}/tenants/${t.tenantId}/audit-events?action=nothing.happened`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(raw.status).toBe(400);
    const teacher = (await addMember(h, t.tenantId, 'TEACHER')).actor;
    const refused = await teacher.api.auditEvents.listForTenant({
      params: { tenantId: t.tenantId },
      query: {},
    });
    expect(refused.status).toBe(403);
  });
});
