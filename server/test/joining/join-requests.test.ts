import { JoinRequestSchema, MyJoinRequestSchema } from '@tms/contract';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinRequests } from '../../src/db/schema.js';
import type { Actor } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { codeOf, type School, schoolOf, stranger } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** A school, a code that requires approval, and a stranger's pending request made with it. */
async function asked(role: 'STUDENT' | 'TEACHER' = 'STUDENT') {
  const school = await schoolOf(h);
  const code = await codeOf(h, school, { role, requiresApproval: true });
  const person = await stranger(h);
  const result = await sdkOf(h, person).joinCodes.join(code.code);
  if (result.outcome !== 'requested') throw new Error(`expected a request, got ${result.outcome}`);
  return { school, code, person, request: result.joinRequest };
}

const membersOf = async (school: School) =>
  (await sdkOf(h, school.owner).memberships.list(school.tenantId, { limit: 100 })).items;

describe('a code that requires approval', () => {
  it('opens one PENDING request for 30 days; redeeming it again answers the same request', async () => {
    const { school, code, person, request } = await asked();
    expect(JoinRequestSchema.parse(request)).toMatchObject({
      userId: person.userId,
      joinCodeId: code.joinCodeId,
      role: 'STUDENT',
      status: 'PENDING',
      email: person.email,
    });
    const days = (Date.parse(request.expiresAt) - Date.parse(request.createdAt)) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    const again = await sdkOf(h, person).joinCodes.join(code.code);
    expect(again).toEqual({ outcome: 'requested', joinRequest: request });
    expect((await membersOf(school)).some((m) => m.userId === person.userId)).toBe(false);
    const [listed] = (await sdkOf(h, school.owner).joinCodes.list(school.tenantId)).items;
    expect(listed?.uses).toBe(1);
  });

  it('is listed for a TEACHER when it is for STUDENT, and only for ADMINs when it is for TEACHER', async () => {
    const forStudent = await asked('STUDENT');
    expect(
      (await sdkOf(h, forStudent.school.teacher).joinRequests.list(forStudent.school.tenantId)).items.map(
        (r) => r.joinRequestId,
      ),
    ).toEqual([forStudent.request.joinRequestId]);
    const forTeacher = await asked('TEACHER');
    const { school } = forTeacher;
    expect((await sdkOf(h, school.teacher).joinRequests.list(school.tenantId)).items).toEqual([]);
    const byAdmin = await sdkOf(h, school.admin).joinRequests.list(school.tenantId, { status: 'PENDING' });
    expect(byAdmin.items.map((r) => r.joinRequestId)).toEqual([forTeacher.request.joinRequestId]);
    expect(
      await refusal(
        sdkOf(h, school.teacher).joinRequests.approve(school.tenantId, forTeacher.request.joinRequestId),
      ),
    ).toEqual(refused(403, 'ROLE_HIERARCHY_VIOLATION'));
  });
});

describe('approve, reject, block', () => {
  it('approve makes an ACTIVE member with the request’s role, or a lower one, never a higher one', async () => {
    const { school, person, request } = await asked('TEACHER');
    const admin = sdkOf(h, school.admin);
    const post = (role: string) =>
      fetch(`${h.baseUrl}/tenants/${school.tenantId}/join-requests/${request.joinRequestId}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${school.owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ role }),
      });
    expect((await post('ADMIN')).status).toBe(400);
    const membership = await admin.joinRequests.approve(school.tenantId, request.joinRequestId, {
      role: 'STUDENT',
    });
    expect(membership).toMatchObject({ userId: person.userId, role: 'STUDENT', status: 'ACTIVE' });
    const [after] = (await admin.joinRequests.list(school.tenantId)).items;
    expect(after).toMatchObject({ status: 'APPROVED', decidedBy: school.admin.userId });
    expect(await refusal(admin.joinRequests.reject(school.tenantId, request.joinRequestId))).toEqual(
      refused(409, 'JOIN_REQUEST_NOT_PENDING'),
    );
    const events = (await sdkOf(h, school.owner).auditEvents.listForTenant(school.tenantId, { limit: 5 }))
      .items;
    expect(events.find((e) => e.action === 'membership.created')?.after).toMatchObject({
      joinedVia: { method: 'join_request', joinRequestId: request.joinRequestId },
    });
    expect(events.some((e) => e.action === 'join_request.approved')).toBe(true);
  });

  it('after a rejection the person may ask again', async () => {
    const { school, code, person, request } = await asked();
    const rejected = await sdkOf(h, school.teacher).joinRequests.reject(
      school.tenantId,
      request.joinRequestId,
    );
    expect(rejected.status).toBe('REJECTED');
    const again = await sdkOf(h, person).joinCodes.join(code.code);
    expect(again.outcome).toBe('requested');
    if (again.outcome !== 'requested') throw new Error('unreachable');
    expect(again.joinRequest.joinRequestId).not.toBe(request.joinRequestId);
  });

  it('block stops the person joining by any code until an ADMIN lifts it', async () => {
    const { school, person, request } = await asked();
    const blocked = await sdkOf(h, school.teacher).joinRequests.block(school.tenantId, request.joinRequestId);
    expect(blocked.status).toBe('BLOCKED');
    const open = await codeOf(h, school);
    const sdk = sdkOf(h, person);
    expect(await refusal(sdk.joinCodes.join(open.code))).toEqual(refused(403, 'JOIN_BLOCKED'));
    expect((await sdk.joinCodes.preview(open.code)).outcome).toBe('blocked');
    expect(
      await refusal(sdkOf(h, school.teacher).joinRequests.unblock(school.tenantId, person.userId)),
    ).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
    await sdkOf(h, school.admin).joinRequests.unblock(school.tenantId, person.userId);
    expect(
      await refusal(sdkOf(h, school.admin).joinRequests.unblock(school.tenantId, person.userId)),
    ).toEqual(refused(404, 'JOIN_BLOCK_NOT_FOUND'));
    expect((await sdk.joinCodes.join(open.code)).outcome).toBe('joined');
  });

  it('another tenant’s request is not found here', async () => {
    const { request } = await asked();
    const other = await schoolOf(h);
    expect(
      await refusal(sdkOf(h, other.owner).joinRequests.approve(other.tenantId, request.joinRequestId)),
    ).toEqual(refused(404, 'JOIN_REQUEST_NOT_FOUND'));
  });

  it('a request lapses after 30 days: EXPIRED, no longer decided, and the person may ask again', async () => {
    const { school, code, person, request } = await asked();
    await h.db
      .update(joinRequests)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(and(eq(joinRequests.tenantId, school.tenantId), eq(joinRequests.id, request.joinRequestId)));
    const admin = sdkOf(h, school.admin);
    expect((await admin.joinRequests.list(school.tenantId, { status: 'EXPIRED' })).items).toHaveLength(1);
    expect(await refusal(admin.joinRequests.approve(school.tenantId, request.joinRequestId))).toEqual(
      refused(409, 'JOIN_REQUEST_NOT_PENDING'),
    );
    expect((await sdkOf(h, person).joinCodes.join(code.code)).outcome).toBe('requested');
    const statuses = (await admin.joinRequests.list(school.tenantId)).items.map((r) => r.status);
    expect(statuses).toEqual(['EXPIRED', 'PENDING']);
  });
});

describe('/me/join-requests', () => {
  it('lists the caller’s requests with the tenant’s name, and cancels a PENDING one', async () => {
    const { school, person, request } = await asked();
    const mine = await sdkOf(h, person).joinRequests.listMine();
    expect(mine.map((r) => MyJoinRequestSchema.parse(r))).toMatchObject([
      { joinRequestId: request.joinRequestId, tenantSlug: school.slug, status: 'PENDING' },
    ]);
    const someoneElse: Actor = await stranger(h);
    expect(await refusal(sdkOf(h, someoneElse).joinRequests.cancel(request.joinRequestId))).toEqual(
      refused(404, 'JOIN_REQUEST_NOT_FOUND'),
    );
    expect((await sdkOf(h, person).joinRequests.cancel(request.joinRequestId)).status).toBe('CANCELLED');
    expect(await refusal(sdkOf(h, person).joinRequests.cancel(request.joinRequestId))).toEqual(
      refused(409, 'JOIN_REQUEST_NOT_PENDING'),
    );
    expect(
      await refusal(sdkOf(h, school.admin).joinRequests.approve(school.tenantId, request.joinRequestId)),
    ).toEqual(refused(409, 'JOIN_REQUEST_NOT_PENDING'));
  });
});
