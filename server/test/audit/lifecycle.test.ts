import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../src/modules/audit/audit-context.js';
import { purgeDeletedTenants } from '../../src/modules/tenants/tenant-deletion.service.js';
import { grantSuperAdmin, revokeSuperAdmin } from '../../src/modules/users/super-admins.service.js';
import { lastEvent, sdkAs, tenantEvents } from '../support/audit-events.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/** Tenants, invitations, ownership transfers and super-administrator grants in the audit trail. */
let h: TestServer;
let admin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

const actorOf = (actor: Actor, isSuperAdmin = false) => ({
  userId: actor.userId,
  subject: actor.subject,
  isSuperAdmin,
});

describe('tenant changes', () => {
  it('records created (with its OWNER), updated, deleted, restored and purged', async () => {
    const sdk = sdkAs(h, admin);
    const owner = await createActor(h);
    const tenant = await sdk.tenants.create({
      name: 'Audit',
      slug: unique('audit'),
      owner: { userId: owner.userId },
    });
    const [created, ownerAdded] = await tenantEvents(h, admin, tenant.tenantId);
    expect(created).toMatchObject({
      action: 'tenant.created',
      actor: actorOf(admin, true),
      target: { type: 'tenant', id: tenant.tenantId },
      before: null,
      after: tenant,
      sequence: 1,
    });
    expect(ownerAdded).toMatchObject({
      action: 'membership.created',
      after: { role: 'OWNER', userId: owner.userId },
    });

    const renamed = await sdk.tenants.update(tenant.tenantId, { name: 'Audited' });
    expect(await lastEvent(h, admin, tenant.tenantId)).toMatchObject({
      action: 'tenant.updated',
      before: tenant,
      after: renamed,
    });
    await sdk.tenants.remove(tenant.tenantId);
    // A deleted tenant's own list is gone with it (404); the platform list keeps its events.
    const deleted = (await sdk.auditEvents.list({ tenantId: tenant.tenantId, limit: 1 })).items[0];
    expect(deleted).toMatchObject({
      action: 'tenant.deleted',
      before: renamed,
      after: { deletedAt: expect.any(String) },
    });
    const restored = await sdk.tenants.restore(tenant.tenantId);
    expect(await lastEvent(h, admin, tenant.tenantId)).toMatchObject({
      action: 'tenant.restored',
      before: deleted?.after,
      after: restored,
    });

    await sdk.tenants.remove(tenant.tenantId);
    const inFuture = new Date(Date.now() + 31 * 86_400_000);
    const purged = await purgeDeletedTenants(h.db, { days: 30 }, { now: inFuture });
    expect(purged.map((t) => t.id)).toContain(tenant.tenantId);
    const events = [];
    for await (const event of sdk.auditEvents.listAll({ tenantId: tenant.tenantId })) events.push(event);
    expect(events.map((event) => event.action)).toEqual([
      'tenant.purged',
      'tenant.deleted',
      'tenant.restored',
      'tenant.deleted',
      'tenant.updated',
      'membership.created',
      'tenant.created',
    ]);
    expect(events[0]).toMatchObject({ actor: SYSTEM_ACTOR, requestId: null, after: null, sequence: 7 });
  });
});

describe('invitations', () => {
  it('records created, resent, revoked, accepted (with the membership) and declined', async () => {
    const t = await createTenantFixture(h);
    const sdk = sdkAs(h, t.owner);
    const invitee = await createActor(h);
    const invited = await sdk.invitations.create(t.tenantId, { email: invitee.email, role: 'TEACHER' });
    expect(await lastEvent(h, t.owner, t.tenantId)).toMatchObject({
      action: 'invitation.created',
      actor: actorOf(t.owner),
      target: { type: 'invitation', id: invited.invitationId },
      before: null,
      after: invited,
    });
    const resent = await sdk.invitations.resend(t.tenantId, invited.invitationId);
    expect(await lastEvent(h, t.owner, t.tenantId)).toMatchObject({
      action: 'invitation.resent',
      before: invited,
      after: resent,
    });
    const membership = await sdkAs(h, invitee).invitations.accept(invited.invitationId);
    const [accepted, joined] = (await tenantEvents(h, t.owner, t.tenantId)).slice(-2);
    expect(accepted).toMatchObject({
      action: 'invitation.accepted',
      actor: actorOf(invitee),
      before: resent,
      after: { status: 'ACCEPTED', acceptedUserId: invitee.userId },
    });
    expect(joined).toMatchObject({
      action: 'membership.created',
      actor: actorOf(invitee),
      after: membership,
    });

    const other = await createActor(h);
    const second = await sdk.invitations.create(t.tenantId, { email: other.email, role: 'STUDENT' });
    const declined = await sdkAs(h, other).invitations.decline(second.invitationId);
    expect(await lastEvent(h, t.owner, t.tenantId)).toMatchObject({
      action: 'invitation.declined',
      actor: actorOf(other),
      before: second,
      after: declined,
    });
    const third = await sdk.invitations.create(t.tenantId, {
      email: `${unique('x')}@example.test`,
      role: 'STUDENT',
    });
    const revoked = await sdk.invitations.revoke(t.tenantId, third.invitationId);
    expect(await lastEvent(h, t.owner, t.tenantId)).toMatchObject({
      action: 'invitation.revoked',
      before: third,
      after: revoked,
    });
  });
});

describe('ownership transfers', () => {
  it('records created, cancelled, declined, and accepted with both role changes', async () => {
    const t = await createTenantFixture(h);
    const nominee = await addMember(h, t.tenantId, 'TEACHER');
    const sdk = sdkAs(h, t.owner);
    const offer = () => sdk.ownershipTransfers.create(t.tenantId, { toMembershipId: nominee.membershipId });
    const first = await offer();
    expect(await lastEvent(h, t.owner, t.tenantId)).toMatchObject({
      action: 'ownership_transfer.created',
      target: { type: 'ownership_transfer', id: first.transferId },
      before: null,
      after: first,
    });
    const cancelled = await sdk.ownershipTransfers.cancel(t.tenantId, first.transferId);
    expect(await lastEvent(h, t.owner, t.tenantId)).toMatchObject({
      action: 'ownership_transfer.cancelled',
      before: first,
      after: cancelled,
    });
    const second = await offer();
    const declined = await sdkAs(h, nominee.actor).ownershipTransfers.decline(second.transferId);
    expect(await lastEvent(h, t.owner, t.tenantId)).toMatchObject({
      action: 'ownership_transfer.declined',
      actor: actorOf(nominee.actor),
      after: declined,
    });
    const third = await offer();
    const accepted = await sdkAs(h, nominee.actor).ownershipTransfers.accept(third.transferId);
    const last = (await tenantEvents(h, admin, t.tenantId)).slice(-3);
    expect(last.map((event) => [event.action, event.target.id, event.after?.role])).toEqual(
      expect.arrayContaining([
        ['membership.role_changed', nominee.membershipId, 'OWNER'],
        ['membership.role_changed', t.ownerMembershipId, 'ADMIN'],
        ['ownership_transfer.accepted', third.transferId, undefined],
      ]),
    );
    expect(last[2]).toMatchObject({ before: third, after: accepted });
  });
});

describe('super administrators', () => {
  it('records grants and revocations as platform events, once each', async () => {
    const subject = unique('grant');
    await grantSuperAdmin(h.db, subject);
    await grantSuperAdmin(h.db, subject);
    await revokeSuperAdmin(h.db, subject);
    const page = await sdkAs(h, admin).auditEvents.list({ limit: 2 });
    expect(page.items.map((event) => [event.action, event.tenantId, event.after?.isSuperAdmin])).toEqual([
      ['super_admin.revoked', null, false],
      ['super_admin.granted', null, true],
    ]);
    expect(page.items[1]).toMatchObject({ actor: SYSTEM_ACTOR, before: null, target: { type: 'user' } });
    expect(page.items[0]?.sequence).toBe((page.items[1]?.sequence ?? 0) + 1);
  });

  it('pages the platform list newest first, and keeps the admin list to super administrators', async () => {
    const sdk = sdkAs(h, admin);
    const first = await sdk.auditEvents.list({ limit: 2 });
    const second = await sdk.auditEvents.list({ limit: 2, cursor: first.nextCursor ?? '' });
    const both = [...first.items, ...second.items];
    expect(new Set(both.map((event) => event.auditEventId)).size).toBe(4);
    const times = both.map((event) => event.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);
    const t = await createTenantFixture(h);
    const refused = await t.owner.api.auditEvents.listAll({ query: {} });
    expect(refused.status).toBe(403);
  });
});
