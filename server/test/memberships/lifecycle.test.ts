import {
  type CreateMembershipBody,
  MembershipSchema,
  type Role,
  type UpdateMembershipBody,
} from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/identity/identity.repository.js';
import {
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  type TenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import {
  expectError,
  membershipRow,
  missingId,
  ownerCount,
  tenantState,
  uniqueEmail,
} from '../support/memberships.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const ids = (tenantId: string, tenantMembershipId: string) => ({ tenantId, tenantMembershipId });

/** An entry of GET /me; the factory names every tenant "Tenant <slug>". */
const meEntry = (t: TenantFixture, tenantMembershipId: string, role: Role, roleLevel: number) => ({
  tenantMembershipId,
  tenantId: t.tenantId,
  tenantSlug: t.slug,
  tenantName: `Tenant ${t.slug}`,
  role,
  roleLevel,
  status: 'ACTIVE',
  startsAt: null,
  endsAt: null,
});

describe('create', () => {
  it('by userId: 201, the full membership with its user, version 1 and ETag "1"', async () => {
    const t = await createTenantFixture(h);
    const user = await createActor(h, { name: 'Ada Lovelace' });
    const res = await t.owner.api.memberships.create({
      params: { tenantId: t.tenantId },
      body: { role: 'TEACHER', userId: user.userId },
    });
    expect(res.status).toBe(201);
    if (res.status !== 201) return;
    expect(res.headers.get('etag')).toBe('"1"');
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    // strict(): no field beyond those the contract declares.
    const data = MembershipSchema.strict().parse(res.body.data);
    expect(data).toMatchObject({
      tenantId: t.tenantId,
      userId: user.userId,
      role: 'TEACHER',
      roleLevel: 20,
      version: 1,
      user: { userId: user.userId, email: user.email, displayName: 'Ada Lovelace' },
    });
    expect(data.createdAt).toMatch(/Z$/);
    expect(await membershipRow(h.db, data.tenantMembershipId)).toMatchObject({ role: 'TEACHER', version: 1 });
    // The answer is built before the row is written (it is sent with the COMMIT): it must be the
    // row as stored, every field, and its ETag.
    const read = await t.owner.api.memberships.get({ params: ids(t.tenantId, data.tenantMembershipId) });
    expect(read.status).toBe(200);
    if (read.status !== 200) return;
    expect(read.body.data).toEqual(data);
    expect(read.headers.get('etag')).toBe('"1"');
  });

  it('by an unknown userId: 404 USER_NOT_FOUND, nothing created', async () => {
    const t = await createTenantFixture(h);
    const before = await tenantState(h.db, t.tenantId);
    const res = await t.owner.api.memberships.create({
      params: { tenantId: t.tenantId },
      body: { role: 'STUDENT', userId: missingId() },
    });
    expectError(res, 404, 'USER_NOT_FOUND');
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });

  it('a second membership of the same user: 409 MEMBERSHIP_ALREADY_EXISTS, by userId or by email', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const before = await tenantState(h.db, t.tenantId);
    const bodies: CreateMembershipBody[] = [
      { role: 'TEACHER', userId: member.actor.userId },
      { role: 'TEACHER', email: member.actor.email.toUpperCase() },
    ];
    for (const body of bodies) {
      const res = await t.owner.api.memberships.create({ params: { tenantId: t.tenantId }, body });
      expectError(res, 409, 'MEMBERSHIP_ALREADY_EXISTS');
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });

  it.each(['userId', 'email'] as const)(
    '10 identical creates at once by %s: one 201, nine 409',
    async (by) => {
      const t = await createTenantFixture(h);
      const user = await createActor(h);
      const body: CreateMembershipBody =
        by === 'userId'
          ? { role: 'STUDENT', userId: user.userId }
          : { role: 'STUDENT', email: uniqueEmail() };
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.owner.api.memberships.create({ params: { tenantId: t.tenantId }, body }),
        ),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([201, ...Array<number>(9).fill(409)]);
      for (const res of answers.filter((r) => r.status === 409))
        expectError(res, 409, 'MEMBERSHIP_ALREADY_EXISTS');
      expect(await tenantState(h.db, t.tenantId)).toHaveLength(2);
    },
  );
});

describe('create by email: invitations', () => {
  async function invite(displayName?: string) {
    const t = await createTenantFixture(h);
    const email = uniqueEmail('invitee');
    const res = await t.owner.api.memberships.create({
      params: { tenantId: t.tenantId },
      body: { role: 'TEACHER', email, ...(displayName ? { displayName } : {}) },
    });
    expect(res.status).toBe(201);
    if (res.status !== 201) throw new Error('invitation failed');
    return { t, email, membership: res.body.data };
  }

  it('an unknown email creates an invited user, without a subject', async () => {
    const { email, membership } = await invite('Grace Hopper');
    expect(membership.user).toEqual({ userId: membership.userId, email, displayName: 'Grace Hopper' });
    expect(await findUserByEmail(h.db, email)).toMatchObject({ id: membership.userId, subject: null });
  });

  it('a later login with that email, verified, claims the user and sees the membership in /me', async () => {
    const { t, email, membership } = await invite();
    // Emails compare case-insensitively.
    const token = await h.token(unique('sub'), { email: email.toUpperCase(), emailVerified: true });
    const me = await h.client(token).me.get();
    expect(me.status).toBe(200);
    if (me.status !== 200) return;
    expect(me.body.data.user.userId).toBe(membership.userId);
    expect(me.body.data.memberships).toEqual([meEntry(t, membership.tenantMembershipId, 'TEACHER', 20)]);
  });

  it.each([
    ['email_verified false', false],
    ['no email_verified claim', undefined],
  ])('a login with %s does not claim it', async (_label, emailVerified) => {
    const { email, membership } = await invite();
    const sub = unique('sub');
    const me = await h.client(await h.token(sub, { email, emailVerified })).me.get();
    expect(me.status).toBe(200);
    if (me.status !== 200) return;
    expect(me.body.data.user.userId).not.toBe(membership.userId);
    expect(me.body.data.memberships).toEqual([]);
    expect(await findUserByEmail(h.db, email)).toMatchObject({ id: membership.userId, subject: null });
    // The invitation is still there for its rightful owner.
    const rightful = await h.client(await h.token(unique('sub'), { email, emailVerified: true })).me.get();
    if (rightful.status === 200) expect(rightful.body.data.user.userId).toBe(membership.userId);
    expect(rightful.status).toBe(200);
  });
});

describe('read, change, delete', () => {
  it('GET answers the membership with ETag; PATCH changes the role, bumps version and ETag', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const params = ids(t.tenantId, member.membershipId);
    const got = await t.owner.api.memberships.get({ params });
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe('"1"');
    if (got.status === 200)
      expect(got.body.data).toMatchObject({ role: 'STUDENT', version: 1, roleLevel: 10 });

    const patched = await t.owner.api.memberships.update({ params, body: { role: 'ADMIN' } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    if (patched.status === 200)
      expect(patched.body.data).toMatchObject({ role: 'ADMIN', roleLevel: 30, version: 2 });
    const again = await t.owner.api.memberships.get({ params });
    expect(again.headers.get('etag')).toBe('"2"');
    expect(await membershipRow(h.db, member.membershipId)).toMatchObject({ role: 'ADMIN', version: 2 });
  });

  it('PATCH with a stale If-Match: 412 PRECONDITION_FAILED, nothing changed; a matching one works', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const params = ids(t.tenantId, member.membershipId);
    const first = await t.owner.api.memberships.update({
      params,
      body: { role: 'TEACHER' },
      headers: { 'if-match': '"1"' },
    });
    expect(first.status).toBe(200);
    const before = await membershipRow(h.db, member.membershipId);
    expect(before).toMatchObject({ role: 'TEACHER', version: 2 });

    const stale = await t.owner.api.memberships.update({
      params,
      body: { role: 'ADMIN' },
      headers: { 'if-match': '"1"' },
    });
    expectError(stale, 412, 'PRECONDITION_FAILED');
    expect(await membershipRow(h.db, member.membershipId)).toEqual(before);

    const fresh = await t.owner.api.memberships.update({
      params,
      body: { role: 'ADMIN' },
      headers: { 'if-match': '"2"' },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('etag')).toBe('"3"');
  });

  it('DELETE answers 204, then GET and a second DELETE answer 404', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'TEACHER');
    const params = ids(t.tenantId, member.membershipId);
    const removed = await t.owner.api.memberships.remove({ params });
    expect(removed.status).toBe(204);
    expectError(await t.owner.api.memberships.get({ params }), 404, 'MEMBERSHIP_NOT_FOUND');
    expectError(await t.owner.api.memberships.remove({ params }), 404, 'MEMBERSHIP_NOT_FOUND');
    expect(await membershipRow(h.db, member.membershipId)).toBeUndefined();
  });

  it('unknown or conflicting body fields: 400 VALIDATION_FAILED with details, nothing changed', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const before = await tenantState(h.db, t.tenantId);
    const creates = [
      { role: 'STUDENT', email: uniqueEmail(), isAdmin: true },
      { role: 'STUDENT', userId: member.actor.userId, email: uniqueEmail() },
      { role: 'STUDENT', userId: missingId(), tenantId: t.tenantId },
    ];
    for (const body of creates) {
      const res = await t.owner.api.memberships.create({
        params: { tenantId: t.tenantId },
        body: body as unknown as CreateMembershipBody,
      });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
    const patch = await t.owner.api.memberships.update({
      params: ids(t.tenantId, member.membershipId),
      body: { role: 'TEACHER', version: 7 } as unknown as UpdateMembershipBody,
    });
    expectError(patch, 400, 'VALIDATION_FAILED');
    if (patch.status === 400) expect(patch.body.error.details?.length).toBeGreaterThan(0);
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });
});

describe('the last OWNER', () => {
  it.each(['the OWNER itself', 'a super administrator'])(
    'cannot be demoted or deleted, by %s: 409 LAST_OWNER',
    async (who) => {
      const t = await createTenantFixture(h);
      const api = who === 'the OWNER itself' ? t.owner.api : (await createSuperAdmin(h)).api;
      const params = ids(t.tenantId, t.ownerMembershipId);
      const before = await tenantState(h.db, t.tenantId);
      for (const role of ['ADMIN', 'TEACHER', 'STUDENT'] as const) {
        expectError(await api.memberships.update({ params, body: { role } }), 409, 'LAST_OWNER');
      }
      expectError(await api.memberships.remove({ params }), 409, 'LAST_OWNER');
      expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    },
  );

  it('with two OWNERs one may go, then the other is the last', async () => {
    const t = await createTenantFixture(h);
    const second = await addMember(h, t.tenantId, 'OWNER');
    const demote = await second.actor.api.memberships.update({
      params: ids(t.tenantId, t.ownerMembershipId),
      body: { role: 'ADMIN' },
    });
    expect(demote.status).toBe(200);
    const secondParams = ids(t.tenantId, second.membershipId);
    expectError(await second.actor.api.memberships.remove({ params: secondParams }), 409, 'LAST_OWNER');
    const third = await addMember(h, t.tenantId, 'OWNER');
    expect((await third.actor.api.memberships.remove({ params: secondParams })).status).toBe(204);
    expect(await ownerCount(h.db, t.tenantId)).toBe(1);
  });
});

describe('GET /me', () => {
  it("lists the caller's memberships with tenant slug and name, role and level", async () => {
    const user = await createActor(h);
    const a = await createTenantFixture(h, user);
    const b = await createTenantFixture(h);
    const inB = await addMember(h, b.tenantId, 'STUDENT', user);
    await createTenantFixture(h); // a tenant the user is not in
    const me = await user.api.me.get();
    expect(me.status).toBe(200);
    if (me.status !== 200) return;
    expect(me.body.data.user).toEqual({
      userId: user.userId,
      email: user.email,
      displayName: user.subject,
      isSuperAdmin: false,
    });
    expect(me.body.data.memberships).toEqual([
      meEntry(a, a.ownerMembershipId, 'OWNER', 40),
      meEntry(b, inB.membershipId, 'STUDENT', 10),
    ]);
  });
});
