import type { Role } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/identity/identity.repository.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError, tenantState, uniqueEmail } from '../support/memberships.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

type Caller = 'OWNER' | 'ADMIN' | 'SUPER_ADMIN';

/** A tenant with two OWNERs (so that the last-owner rule stays out of the way) and the caller. */
async function setUp(caller: Caller) {
  const t = await createTenantFixture(h);
  const secondOwner = await addMember(h, t.tenantId, 'OWNER');
  let actor: Actor;
  if (caller === 'SUPER_ADMIN') actor = await createSuperAdmin(h);
  else if (caller === 'OWNER') actor = t.owner;
  else actor = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const ids = (membershipId: string) => ({ tenantId: t.tenantId, tenantMembershipId: membershipId });
  return { t, secondOwner, api: actor.api, ids };
}

describe('an ADMIN may not reach above its level', () => {
  it('cannot create an OWNER, by userId or by email; nothing is created, nobody invited', async () => {
    const { t, api } = await setUp('ADMIN');
    const before = await tenantState(h.db, t.tenantId);
    const user = await createActor(h);
    const email = uniqueEmail('would-be-owner');
    for (const body of [
      { role: 'OWNER' as const, userId: user.userId },
      { role: 'OWNER' as const, email },
    ]) {
      expectError(
        await api.memberships.create({ params: { tenantId: t.tenantId }, body }),
        403,
        'ROLE_HIERARCHY_VIOLATION',
      );
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    expect(await findUserByEmail(h.db, email)).toBeUndefined();
  });

  it('cannot promote anyone to OWNER, itself included', async () => {
    const { t, api, ids } = await setUp('ADMIN');
    const student = await addMember(h, t.tenantId, 'STUDENT');
    const before = await tenantState(h.db, t.tenantId);
    const self = before.find((m) => m.role === 'ADMIN');
    if (!self) throw new Error('no ADMIN in the fixture');
    for (const id of [student.membershipId, self.id]) {
      const res = await api.memberships.update({ params: ids(id), body: { role: 'OWNER' } });
      expectError(res, 403, 'ROLE_HIERARCHY_VIOLATION');
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });

  it.each(['ADMIN', 'TEACHER', 'STUDENT', 'OWNER'] as const)(
    'cannot change an OWNER to %s, nor delete one',
    async (role) => {
      const { t, secondOwner, api, ids } = await setUp('ADMIN');
      const before = await tenantState(h.db, t.tenantId);
      for (const id of [t.ownerMembershipId, secondOwner.membershipId]) {
        expectError(
          await api.memberships.update({ params: ids(id), body: { role } }),
          403,
          'ROLE_HIERARCHY_VIOLATION',
        );
        expectError(await api.memberships.remove({ params: ids(id) }), 403, 'ROLE_HIERARCHY_VIOLATION');
      }
      expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    },
  );
});

describe('an ADMIN manages ADMIN, TEACHER and STUDENT', () => {
  it.each(['ADMIN', 'TEACHER', 'STUDENT'] as const)('creates a %s', async (role) => {
    const { t, api } = await setUp('ADMIN');
    const res = await api.memberships.create({
      params: { tenantId: t.tenantId },
      body: { role, email: uniqueEmail() },
    });
    expect(res.status).toBe(201);
    if (res.status === 201) expect(res.body.data.role).toBe(role);
  });

  const moves: [Role, Role][] = [
    ['STUDENT', 'TEACHER'],
    ['TEACHER', 'ADMIN'],
    ['ADMIN', 'STUDENT'],
    ['ADMIN', 'TEACHER'],
    ['TEACHER', 'STUDENT'],
  ];
  it.each(moves)('changes a %s to %s', async (from, to) => {
    const { t, api, ids } = await setUp('ADMIN');
    const member = await addMember(h, t.tenantId, from);
    const res = await api.memberships.update({ params: ids(member.membershipId), body: { role: to } });
    expect(res.status).toBe(200);
    if (res.status === 200) expect(res.body.data.role).toBe(to);
  });

  it.each(['ADMIN', 'TEACHER', 'STUDENT'] as const)('deletes a %s', async (role) => {
    const { t, api, ids } = await setUp('ADMIN');
    const member = await addMember(h, t.tenantId, role);
    expect((await api.memberships.remove({ params: ids(member.membershipId) })).status).toBe(204);
    expect((await tenantState(h.db, t.tenantId)).some((m) => m.id === member.membershipId)).toBe(false);
  });
});

describe.each(['OWNER', 'SUPER_ADMIN'] as const)('%s may do everything', (caller) => {
  it('creates an OWNER', async () => {
    const { t, api } = await setUp(caller);
    const res = await api.memberships.create({
      params: { tenantId: t.tenantId },
      body: { role: 'OWNER', email: uniqueEmail() },
    });
    expect(res.status).toBe(201);
    if (res.status === 201) expect(res.body.data).toMatchObject({ role: 'OWNER', roleLevel: 40 });
  });

  it('promotes a STUDENT to OWNER', async () => {
    const { t, api, ids } = await setUp(caller);
    const student = await addMember(h, t.tenantId, 'STUDENT');
    const res = await api.memberships.update({ params: ids(student.membershipId), body: { role: 'OWNER' } });
    expect(res.status).toBe(200);
    if (res.status === 200) expect(res.body.data.role).toBe('OWNER');
  });

  it('demotes another OWNER', async () => {
    const { t, secondOwner, api, ids } = await setUp(caller);
    const res = await api.memberships.update({
      params: ids(secondOwner.membershipId),
      body: { role: 'STUDENT' },
    });
    expect(res.status).toBe(200);
    if (res.status === 200) expect(res.body.data.role).toBe('STUDENT');
    expect((await tenantState(h.db, t.tenantId)).filter((m) => m.role === 'OWNER')).toHaveLength(1);
  });

  it('deletes another OWNER and an ADMIN', async () => {
    const { t, secondOwner, api, ids } = await setUp(caller);
    const admin = await addMember(h, t.tenantId, 'ADMIN');
    expect((await api.memberships.remove({ params: ids(secondOwner.membershipId) })).status).toBe(204);
    expect((await api.memberships.remove({ params: ids(admin.membershipId) })).status).toBe(204);
    const left = (await tenantState(h.db, t.tenantId)).map((m) => m.id);
    expect(left).not.toContain(secondOwner.membershipId);
    expect(left).not.toContain(admin.membershipId);
  });

  it('is still bound by the last-owner rule', async () => {
    const { t, secondOwner, api, ids } = await setUp(caller);
    // The caller, when an OWNER, is t.owner: remove the other one first.
    expect((await api.memberships.remove({ params: ids(secondOwner.membershipId) })).status).toBe(204);
    expectError(await api.memberships.remove({ params: ids(t.ownerMembershipId) }), 409, 'LAST_OWNER');
  });
});
