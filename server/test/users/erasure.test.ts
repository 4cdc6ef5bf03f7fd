import type { AuditEvent, Membership } from '@tms/client';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErasedPerson, pseudonymised, pseudonymOf } from '../../src/modules/erasure/pseudonym.js';
import { sdkAs, tenantEvents } from '../support/audit-events.js';
import {
  type Actor,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError, missingId } from '../support/memberships.js';

/*
 * DELETE /admin/users/:userId over HTTP. One person, Ann, is given a life across three tenants
 * (memberships, an invitation, two transfers, changes she made herself, answers kept for replay),
 * then erased; the trail must still add up, and show her nowhere.
 */

let h: TestServer;
let admin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

/** Someone who signs in with a verified address and a name, as an identity provider would say. */
async function signIn(person: { subject: string; email: string; name: string }): Promise<Actor> {
  const token = await h.token(person.subject, {
    email: person.email,
    emailVerified: true,
    name: person.name,
  });
  const api = h.client(token);
  const me = await api.me.get();
  if (me.status !== 200) throw new Error(`sign-in answered ${me.status}`);
  return { userId: me.body.data.user.userId, subject: person.subject, email: person.email, token, api };
}

/** Rows read behind the API's back; `execute` answers rows on postgres.js, `{ rows }` on PGlite. */
async function rows<T>(statement: ReturnType<typeof sql>): Promise<T[]> {
  const result = await h.db.execute(statement);
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}

/** Every page of GET /admin/audit-events, as the raw JSON text the API answered. */
async function rawTrail(): Promise<string> {
  const pages: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res = await fetch(`${h.baseUrl}/admin/audit-events?limit=100${query}`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    pages.push(text);
    cursor = (JSON.parse(text) as { meta: { nextCursor: string | null } }).meta.nextCursor;
  } while (cursor);
  return pages.join('\n');
}

/** A table as JSON text, to search for what must not be there. */
const tableText = async (table: 'users' | 'invitations' | 'idempotency_keys' | 'tenant_memberships') =>
  JSON.stringify(await rows(sql.raw(`select * from ${table}`)));

/** Ann: her address as she writes it, her own name, and the names tenants gave her. */
const tag = unique('x').slice(2);
const ann = {
  subject: `ann-${tag}`,
  email: `Ann.Erasable-${tag}@Example.test`,
  name: `Ann Erasable-${tag}`,
  givenNames: [`Annie-${tag}`, `Ann E.-${tag}`],
};
const secrets = [ann.email, ann.name, ...ann.givenNames, ann.subject].map((s) => s.toLowerCase());
const leaked = (text: string) => secrets.filter((secret) => text.toLowerCase().includes(secret));

type World = Awaited<ReturnType<typeof annsLife>>;

/**
 * A: added by email before she ever signed in (the tenant's name for her), claimed at her first
 * sign-in, promoted, suspended with a reason naming her, reactivated; adds a student herself, is
 * made OWNER, offers A to the student. B: invited, accepts, is nominated for ownership. C: invited,
 * not yet answered. Every change through the API, so that the trail holds each one.
 */
async function annsLife() {
  const [a, b, c] = [
    await createTenantFixture(h),
    await createTenantFixture(h),
    await createTenantFixture(h),
  ];
  const owner = (t: typeof a) => sdkAs(h, t.owner);
  const added = await owner(a).memberships.create(
    a.tenantId,
    { email: ann.email.toUpperCase(), role: 'STUDENT', displayName: ann.givenNames[0] },
    { idempotencyKey: unique('add-ann') },
  );
  const person = await signIn(ann);
  const inA = added.tenantMembershipId;
  await owner(a).memberships.update(a.tenantId, inA, { role: 'ADMIN' });
  await owner(a).memberships.suspend(a.tenantId, inA, {
    reason: `${ann.name} promised to pay; wrote from ${ann.email.toLowerCase()}.`,
  });
  await owner(a).memberships.reactivate(a.tenantId, inA);
  const student = await createActor(h);
  const studentInA = await sdkAs(h, person).memberships.create(a.tenantId, {
    userId: student.userId,
    role: 'STUDENT',
  });
  await owner(a).memberships.update(a.tenantId, inA, { role: 'OWNER' });
  const offeredByAnn = await sdkAs(h, person).ownershipTransfers.create(a.tenantId, {
    toMembershipId: studentInA.tenantMembershipId,
  });

  const invitedToB = await owner(b).invitations.create(b.tenantId, {
    email: ann.email,
    role: 'TEACHER',
    displayName: ann.givenNames[1],
  });
  const inB = await sdkAs(h, person).invitations.accept(invitedToB.invitationId);
  const offeredToAnn = await owner(b).ownershipTransfers.create(b.tenantId, {
    toMembershipId: inB.tenantMembershipId,
  });
  const invitedToC = await owner(c).invitations.create(c.tenantId, { email: ann.email, role: 'STUDENT' });
  return { a, b, c, person, inA, inB, offeredByAnn, offeredToAnn, invitedToC };
}

describe('DELETE /admin/users/:userId', () => {
  let w: World;
  let erasedEvent: AuditEvent | undefined;
  const pseudonym = () => pseudonymOf(w.person.userId);

  beforeAll(async () => {
    w = await annsLife();
    await sdkAs(h, admin).users.erase(w.person.userId);
    const page = await sdkAs(h, admin).auditEvents.list({ action: 'user.erased', targetId: w.person.userId });
    erasedEvent = page.items[0];
  });

  it('removes her memberships, revokes her invitation, cancels both transfers, and records user.erased', async () => {
    const sdk = sdkAs(h, admin);
    for (const t of [w.a, w.b]) {
      const members: Membership[] = [];
      for await (const m of sdk.memberships.listAll(t.tenantId)) members.push(m);
      expect(members.map((m) => m.userId)).not.toContain(w.person.userId);
    }
    expect((await sdk.invitations.get(w.c.tenantId, w.invitedToC.invitationId)).status).toBe('REVOKED');
    expect((await sdk.ownershipTransfers.get(w.a.tenantId, w.offeredByAnn.transferId)).status).toBe(
      'CANCELLED',
    );
    expect((await sdk.ownershipTransfers.get(w.b.tenantId, w.offeredToAnn.transferId)).status).toBe(
      'CANCELLED',
    );
    expect(erasedEvent).toMatchObject({
      tenantId: null,
      action: 'user.erased',
      actor: { userId: admin.userId, subject: admin.subject, isSuperAdmin: true },
      target: { type: 'user', id: w.person.userId },
      before: null,
      after: {
        userId: w.person.userId,
        pseudonym: pseudonym().name,
        membershipsRemoved: 2,
        invitationsRevoked: 1,
        transfersCancelled: 2,
      },
    });
  });

  it('writes each change as its own event, showing the pseudonym', async () => {
    const [lastOfA] = (await tenantEvents(h, admin, w.a.tenantId)).slice(-1);
    expect(lastOfA).toMatchObject({
      action: 'membership.removed',
      actor: { userId: admin.userId },
      before: {
        tenantMembershipId: w.inA,
        role: 'OWNER',
        user: { userId: w.person.userId, email: pseudonym().email, displayName: pseudonym().name },
      },
      after: null,
    });
    const [revoked] = (await tenantEvents(h, admin, w.c.tenantId)).slice(-1);
    expect(revoked).toMatchObject({
      action: 'invitation.revoked',
      before: { status: 'PENDING', email: pseudonym().email, displayName: null },
      after: { status: 'REVOKED', email: pseudonym().email },
    });
  });

  it('keeps her user id on the changes she made, and forgets their subject', async () => {
    const hers = await sdkAs(h, admin).auditEvents.list({ actorUserId: w.person.userId });
    expect(hers.items.map((e) => e.action).sort()).toEqual([
      'invitation.accepted',
      'membership.created',
      'membership.created',
      'ownership_transfer.created',
    ]);
    for (const event of hers.items)
      expect(event.actor).toEqual({ userId: w.person.userId, subject: null, isSuperAdmin: false });
  });

  it('leaves her email, names and subject nowhere: the trail, users, invitations, stored answers', async () => {
    expect(leaked(await rawTrail())).toEqual([]);
    for (const table of ['users', 'invitations', 'idempotency_keys', 'tenant_memberships'] as const)
      expect(leaked(await tableText(table)), table).toEqual([]);
    const [user] = await rows<Record<string, unknown>>(
      sql`select * from users where id = ${w.person.userId}`,
    );
    expect(user).toMatchObject({
      email: pseudonym().email,
      email_canonical: pseudonym().email,
      display_name: pseudonym().name,
      subject: null,
      is_super_admin: false,
    });
    expect(user?.erased_at).not.toBeNull();
    // Her own keys are gone; the owner's answer that showed her now shows the pseudonym.
    expect(await rows(sql`select key from idempotency_keys where user_id = ${w.person.userId}`)).toEqual([]);
    expect(await tableText('idempotency_keys')).toContain(pseudonym().email);
  });

  it('answers 404 USER_NOT_FOUND to a second erasure, and to an unknown user', async () => {
    const again = await admin.api.users.erase({ params: { userId: w.person.userId } });
    expectError(again, 404, 'USER_NOT_FOUND');
    expectError(await admin.api.users.erase({ params: { userId: missingId() } }), 404, 'USER_NOT_FOUND');
  });

  it('never makes the erased user a member again: adding her by id is 404 USER_NOT_FOUND', async () => {
    const added = await admin.api.memberships.create({
      params: { tenantId: w.c.tenantId },
      body: { userId: w.person.userId, role: 'STUDENT' },
    });
    expectError(added, 404, 'USER_NOT_FOUND');
  });

  it('makes whoever signs in again with her subject and address a new user, with nothing', async () => {
    const again = await signIn(ann);
    expect(again.userId).not.toBe(w.person.userId);
    const me = await sdkAs(h, again).me();
    expect(me).toMatchObject({ user: { email: ann.email, displayName: ann.name, isSuperAdmin: false } });
    expect(me.memberships).toEqual([]);
    expect(await sdkAs(h, again).invitations.listMine()).toEqual([]);
  });

  it('leaves the trail append-only: a plain UPDATE is still refused', async () => {
    const refused = await h.db
      .execute(sql`update audit_events set before = '{}'::jsonb where target_id = ${w.person.userId}`)
      .then(
        () => 'not refused',
        (error: { cause?: { message?: string } }) => error.cause?.message ?? String(error),
      );
    expect(refused).toMatch(/append-only/);
  });
});

describe('who may erase, and whom', () => {
  it('refuses a tenant OWNER who is not a super administrator: 403, and nothing changes', async () => {
    const t = await createTenantFixture(h);
    const member = await signIn({
      subject: unique('member'),
      email: `${unique('m')}@example.test`,
      name: 'Member',
    });
    await sdkAs(h, t.owner).memberships.create(t.tenantId, { userId: member.userId, role: 'STUDENT' });
    expectError(
      await t.owner.api.users.erase({ params: { userId: member.userId } }),
      403,
      'SUPER_ADMIN_REQUIRED',
    );
    const me = await sdkAs(h, member).me();
    expect(me.memberships.map((m) => m.tenantId)).toEqual([t.tenantId]);
  });

  it("refuses LAST_OWNER while the user is a tenant's last ACTIVE OWNER (a suspended one does not count), changing nothing", async () => {
    const t = await createTenantFixture(h);
    const other = await createActor(h);
    const second = await sdkAs(h, t.owner).memberships.create(t.tenantId, {
      userId: other.userId,
      role: 'OWNER',
    });
    await sdkAs(h, t.owner).memberships.suspend(t.tenantId, second.tenantMembershipId, {});
    const snapshot = async () =>
      JSON.stringify({
        user: await rows(sql`select * from users where id = ${t.owner.userId}`),
        memberships: await rows(
          sql`select * from tenant_memberships where tenant_id = ${t.tenantId} order by id`,
        ),
        events: await rows(sql`select * from audit_events order by id`),
      });
    const before = await snapshot();
    expectError(await admin.api.users.erase({ params: { userId: t.owner.userId } }), 409, 'LAST_OWNER');
    expect(await snapshot()).toBe(before);

    // Reactivated, the other OWNER can take over: the erasure goes through.
    await sdkAs(h, admin).memberships.reactivate(t.tenantId, second.tenantMembershipId);
    await sdkAs(h, admin).users.erase(t.owner.userId);
    const owners = await sdkAs(h, admin).memberships.list(t.tenantId, { role: 'OWNER' });
    expect(owners.items.map((m) => m.userId)).toEqual([other.userId]);
  });

  it('does not count a deleted tenant: its last OWNER can be erased (a restore then needs a new OWNER)', async () => {
    const t = await createTenantFixture(h);
    await sdkAs(h, admin).tenants.remove(t.tenantId);
    await sdkAs(h, admin).users.erase(t.owner.userId);
    expect(await rows(sql`select id from tenant_memberships where tenant_id = ${t.tenantId}`)).toEqual([]);
  });

  it("takes a super administrator's flag away, with super_admin.revoked, and no subject left in the trail", async () => {
    const other = await createSuperAdmin(h);
    await sdkAs(h, admin).users.erase(other.userId);
    const events = await sdkAs(h, admin).auditEvents.list({ targetId: other.userId });
    expect(events.items.map((e) => e.action)).toEqual([
      'user.erased',
      'super_admin.revoked',
      'super_admin.granted',
    ]);
    expect(events.items[1]).toMatchObject({
      actor: { userId: admin.userId },
      before: { userId: other.userId, subject: null, isSuperAdmin: true },
      after: { userId: other.userId, subject: null, isSuperAdmin: false },
    });
    expect(events.items[2]?.after).toEqual({ userId: other.userId, subject: null, isSuperAdmin: true });
    expect(await rawTrail()).not.toContain(other.subject);
    // The same token now belongs to a new user, who is nobody's administrator.
    expectError(await other.api.tenants.list({ query: {} }), 403, 'SUPER_ADMIN_REQUIRED');
  });

  it("lets a super administrator erase themselves, keeping their subject out of the erasure's own events", async () => {
    const self = await createSuperAdmin(h);
    await sdkAs(h, self).users.erase(self.userId);
    const page = await sdkAs(h, admin).auditEvents.list({ targetId: self.userId, action: 'user.erased' });
    expect(page.items[0]?.actor).toEqual({ userId: self.userId, subject: null, isSuperAdmin: true });
    expect(await rawTrail()).not.toContain(self.subject);
  });
});

describe('the history still adds up after an erasure', () => {
  let w: World;
  beforeAll(async () => {
    w = await annsLife();
    await sdkAs(h, admin).users.erase(w.person.userId);
  });

  it.each(['a', 'b', 'c'] as const)(
    'tenant %s: numbered without gaps, each life whole, the replay equals the list',
    async (key) => {
      const tenantId = w[key].tenantId;
      const events = await tenantEvents(h, admin, tenantId);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      const alive = replay(events);
      const listed: Membership[] = [];
      for await (const m of sdkAs(h, admin).memberships.listAll(tenantId)) listed.push(m);
      const byId = (x: Membership, y: Membership) => x.tenantMembershipId.localeCompare(y.tenantMembershipId);
      expect([...alive.values()].sort(byId)).toEqual(listed.sort(byId));
    },
  );
});

describe('the rewrite of a stored DTO', () => {
  const userId = '0190f000-0000-7000-8000-000000000001';
  const person: ErasedPerson = {
    userId,
    canonicalEmail: 'ann@example.test',
    membershipIds: new Set(['0190f000-0000-7000-8000-0000000000aa']),
    invitationIds: new Set(['0190f000-0000-7000-8000-0000000000bb']),
    canonicalEmails: new Set(['ann@example.test', 'ann.old@example.test']),
    names: ['Ann', 'Annie B.'],
  };
  const p = pseudonymOf(userId);
  const rewrite = (value: unknown) => pseudonymised(value, person, p);

  it('rewrites a membership of hers by its id, even one that showed the invited user she was merged from', () => {
    const membership = {
      tenantMembershipId: '0190f000-0000-7000-8000-0000000000aa',
      userId: '0190f000-0000-7000-8000-0000000000cc',
      suspensionReason: 'Ann (annie b.) wrote from ANN.OLD@example.test. Annual fees unpaid.',
      user: { userId: '0190f000-0000-7000-8000-0000000000cc', email: 'someone@else.test', displayName: null },
    };
    expect(rewrite(membership)).toEqual({
      ...membership,
      suspensionReason: `${p.name} (${p.name}) wrote from ${p.email}. Annual fees unpaid.`,
      user: { userId: membership.userId, email: p.email, displayName: p.name },
    });
  });

  it("rewrites invitations to her (a name only where the inviter gave one), leaves everyone else's", () => {
    const hers = {
      invitationId: '0190f000-0000-7000-8000-0000000000dd',
      email: 'Ann@EXAMPLE.test',
      displayName: null,
    };
    const accepted = {
      invitationId: '0190f000-0000-7000-8000-0000000000ee',
      email: 'x@y.test',
      displayName: 'X',
      acceptedUserId: userId,
    };
    const theirs = {
      invitationId: '0190f000-0000-7000-8000-0000000000ff',
      email: 'bob@example.test',
      displayName: 'Ann',
      invitedByUserId: userId,
    };
    expect(rewrite([hers, accepted, theirs])).toEqual([
      { ...hers, email: p.email },
      { ...accepted, email: p.email, displayName: p.name },
      theirs,
    ]);
  });

  it('rewrites her as a user anywhere, a subject included, and is stable when applied again', () => {
    const flag = { data: { userId, subject: 'idp|ann', isSuperAdmin: true } };
    const once = rewrite(flag);
    expect(once).toEqual({ data: { userId, subject: null, isSuperAdmin: true } });
    expect(rewrite(once)).toEqual(once);
    expect(rewrite(null)).toBeNull();
  });
});

const FIRST: Record<string, string> = {
  tenant: 'tenant.created',
  membership: 'membership.created',
  invitation: 'invitation.created',
  ownership_transfer: 'ownership_transfer.created',
};

/**
 * Replays a tenant's events, oldest first: each resource's life starts with its creation (before
 * null), each event starts from what the one before it ended with, nothing follows an end (after
 * null). Answers the memberships alive at the end, as the last event showed them.
 */
function replay(events: AuditEvent[]): Map<string, Membership> {
  const last = new Map<string, AuditEvent>();
  const alive = new Map<string, Membership>();
  for (const event of events) {
    const key = `${event.target.type}:${event.target.id}`;
    const previous = last.get(key);
    const where = `${event.action} #${event.sequence}`;
    if (previous === undefined) {
      expect(event.action, where).toBe(FIRST[event.target.type]);
      expect(event.before, where).toBeNull();
    } else {
      expect(previous.after, `${where} follows an end`).not.toBeNull();
      expect(event.before, `${where} starts where ${previous.action} #${previous.sequence} ended`).toEqual(
        previous.after,
      );
    }
    last.set(key, event);
    if (event.target.type !== 'membership') continue;
    if (event.after === null) alive.delete(event.target.id);
    else alive.set(event.target.id, event.after as unknown as Membership);
  }
  return alive;
}
