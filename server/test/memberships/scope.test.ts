import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, addMember, createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import {
  type AnyResponse,
  expectError,
  membershipRow,
  missingId,
  tenantState,
} from '../support/memberships.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** Tenant A, where the caller acts, and tenant B, whose memberships must stay out of A's reach. */
async function twoTenants() {
  const a = await createTenantFixture(h);
  const b = await createTenantFixture(h);
  const bStudent = await addMember(h, b.tenantId, 'STUDENT');
  return { a, b, bStudent };
}

/** GET, PATCH (plain and with a matching If-Match) and DELETE of one membership id under a tenant's URL. */
async function touchAll(api: Actor['api'], tenantId: string, membershipId: string) {
  const params = { tenantId, tenantMembershipId: membershipId };
  const answers: Record<string, AnyResponse> = {
    get: await api.memberships.get({ params }),
    patch: await api.memberships.update({ params, body: { role: 'ADMIN' } }),
    patchIfMatch: await api.memberships.update({
      params,
      body: { role: 'TEACHER' },
      headers: { 'if-match': '"1"' },
    }),
    patchSameRole: await api.memberships.update({ params, body: { role: 'STUDENT' } }),
    remove: await api.memberships.remove({ params }),
  };
  return answers;
}

/** The error as a client sees it, minus what differs on every request or names the id asked for. */
const comparable = (res: AnyResponse, id: string) => {
  const { requestId: _, ...error } = (res.body as { error: { requestId: string; message: string } }).error;
  return { status: res.status, ...error, message: error.message.replace(id, '<id>') };
};

describe("another tenant's membership is treated exactly as a missing one", () => {
  it('GET, PATCH and DELETE answer 404 MEMBERSHIP_NOT_FOUND, the same as for a random id', async () => {
    const { a, b, bStudent } = await twoTenants();
    const foreign = await touchAll(a.owner.api, a.tenantId, bStudent.membershipId);
    const randomId = missingId();
    const random = await touchAll(a.owner.api, a.tenantId, randomId);
    for (const [name, res] of Object.entries(foreign)) {
      expectError(res, 404, 'MEMBERSHIP_NOT_FOUND');
      const other = random[name];
      if (!other) throw new Error(`no answer for ${name}`);
      expect(comparable(res, bStudent.membershipId), name).toEqual(comparable(other, randomId));
    }
    expect(await membershipRow(h.db, bStudent.membershipId)).toMatchObject({ role: 'STUDENT', version: 1 });
    // And as tenant B's own OWNER sees it.
    const seen = await b.owner.api.memberships.get({
      params: { tenantId: b.tenantId, tenantMembershipId: bStudent.membershipId },
    });
    expect(seen.status).toBe(200);
    if (seen.status === 200) expect(seen.body.data).toMatchObject({ role: 'STUDENT', version: 1 });
  });

  it('leaves every row of the other tenant unchanged, its OWNER included', async () => {
    const { a, b } = await twoTenants();
    const before = await tenantState(h.db, b.tenantId);
    for (const m of before) await touchAll(a.owner.api, a.tenantId, m.id);
    expect(await tenantState(h.db, b.tenantId)).toEqual(before);
  });

  it('an ADMIN targeting an OWNER elsewhere gets 404, not a hierarchy refusal that would reveal it', async () => {
    const { a, b } = await twoTenants();
    const admin = await addMember(h, a.tenantId, 'ADMIN');
    const before = await tenantState(h.db, b.tenantId);
    for (const res of Object.values(await touchAll(admin.actor.api, a.tenantId, b.ownerMembershipId))) {
      expectError(res, 404, 'MEMBERSHIP_NOT_FOUND');
    }
    expect(await tenantState(h.db, b.tenantId)).toEqual(before);
  });

  it("deleting another tenant's only OWNER is 404, not LAST_OWNER", async () => {
    const { a, b } = await twoTenants();
    const res = await a.owner.api.memberships.remove({
      params: { tenantId: a.tenantId, tenantMembershipId: b.ownerMembershipId },
    });
    expectError(res, 404, 'MEMBERSHIP_NOT_FOUND');
    expect(await membershipRow(h.db, b.ownerMembershipId)).toMatchObject({ role: 'OWNER', version: 1 });
  });

  it('applies to a super administrator too: the URL names the tenant', async () => {
    const { a, b, bStudent } = await twoTenants();
    const admin = await createSuperAdmin(h);
    const before = await tenantState(h.db, b.tenantId);
    for (const res of Object.values(await touchAll(admin.api, a.tenantId, bStudent.membershipId))) {
      expectError(res, 404, 'MEMBERSHIP_NOT_FOUND');
    }
    expect(await tenantState(h.db, b.tenantId)).toEqual(before);
  });

  it('does not list the memberships of the other tenant', async () => {
    const { a, b } = await twoTenants();
    const res = await a.owner.api.memberships.list({ params: { tenantId: a.tenantId } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expect(res.body.data.map((m) => m.tenantId)).toEqual([a.tenantId]);
    const bIds = (await tenantState(h.db, b.tenantId)).map((m) => m.id);
    expect(res.body.data.some((m) => bIds.includes(m.tenantMembershipId))).toBe(false);
  });
});
