import { isApiError } from '@tms/client';
import type { UpdateMembershipBody } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { type AnyResponse, expectError, tenantState } from '../support/memberships.js';
import { sdkOf } from '../support/sdk.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const ids = (tenantId: string, tenantMembershipId: string) => ({ tenantId, tenantMembershipId });
const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

/** A 400 VALIDATION_FAILED whose details name exactly these fields. */
function expectInvalid(res: AnyResponse, paths: string[]): void {
  expectError(res, 400, 'VALIDATION_FAILED');
  const details = (res.body as { error: { details?: { path: string }[] } }).error.details ?? [];
  expect(details.map((d) => d.path).sort(), JSON.stringify(details)).toEqual(paths.sort());
}

describe('PATCH term dates, through the SDK', () => {
  it('sets, keeps and clears dates; the status follows them; a date not sent keeps its value', async () => {
    const t = await createTenantFixture(h);
    const m = await addMember(h, t.tenantId, 'STUDENT');
    const sdk = sdkOf(h, t.owner);
    // Any offset is read as the instant it names, and answered in UTC.
    const scheduled = await sdk.memberships.update(t.tenantId, m.membershipId, {
      startsAt: '2999-09-01T08:00:00+02:00',
      endsAt: '2999-12-31T23:00:00Z',
    });
    expect(scheduled).toMatchObject({
      status: 'SCHEDULED',
      startsAt: '2999-09-01T06:00:00.000Z',
      endsAt: '2999-12-31T23:00:00.000Z',
      role: 'STUDENT',
      version: 2,
    });
    const started = await sdk.memberships.update(
      t.tenantId,
      m.membershipId,
      { startsAt: null },
      { ifMatch: 2 },
    );
    expect(started).toMatchObject({
      status: 'ACTIVE',
      startsAt: null,
      endsAt: '2999-12-31T23:00:00.000Z',
      version: 3,
    });
    const promoted = await sdk.memberships.update(t.tenantId, m.membershipId, { role: 'TEACHER' });
    expect(promoted).toMatchObject({ role: 'TEACHER', endsAt: '2999-12-31T23:00:00.000Z', version: 4 });
    const ended = await sdk.memberships.update(t.tenantId, m.membershipId, { endsAt: inDays(-1) });
    expect(ended).toMatchObject({ status: 'ENDED', role: 'TEACHER', version: 5 });
    // The same values again change nothing: no new version.
    const same = await sdk.memberships.update(t.tenantId, m.membershipId, {
      role: 'TEACHER',
      startsAt: null,
      endsAt: ended.endsAt,
    });
    expect(same).toEqual(ended);
  });

  it('startsAt must stay before endsAt, the stored one included: 400 naming the date sent, nothing changed', async () => {
    const t = await createTenantFixture(h);
    const m = await addMember(h, t.tenantId, 'STUDENT');
    const params = ids(t.tenantId, m.membershipId);
    await sdkOf(h, t.owner).memberships.update(t.tenantId, m.membershipId, {
      startsAt: '2030-01-01T00:00:00Z',
      endsAt: '2030-06-01T00:00:00Z',
    });
    const before = await tenantState(h.db, t.tenantId);
    const patch = (body: UpdateMembershipBody) => t.owner.api.memberships.update({ params, body });
    expectInvalid(await patch({ startsAt: '2030-06-01T00:00:00Z' }), ['body.startsAt']);
    expectInvalid(await patch({ startsAt: '2031-01-01T00:00:00Z' }), ['body.startsAt']);
    expectInvalid(await patch({ endsAt: '2030-01-01T00:00:00Z' }), ['body.endsAt']);
    expectInvalid(await patch({ endsAt: '2029-01-01T00:00:00+14:00' }), ['body.endsAt']);
    expectInvalid(await patch({ startsAt: '2040-01-01T00:00:00Z', endsAt: '2039-01-01T00:00:00Z' }), [
      'body.endsAt',
    ]);
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    // Moving both at once, or clearing one, is fine.
    expect((await patch({ startsAt: '2031-01-01T00:00:00Z', endsAt: '2032-01-01T00:00:00Z' })).status).toBe(
      200,
    );
    expect((await patch({ endsAt: null })).status).toBe(200);
    expect((await patch({ startsAt: '2040-01-01T00:00:00Z' })).status).toBe(200);
  });
});

describe('OWNER memberships carry no term dates', () => {
  it('dates on an OWNER: 400 naming them; making a dated member OWNER: 400 naming the date to clear', async () => {
    const t = await createTenantFixture(h);
    const second = await addMember(h, t.tenantId, 'OWNER');
    const teacher = await addMember(h, t.tenantId, 'TEACHER');
    await sdkOf(h, t.owner).memberships.update(t.tenantId, teacher.membershipId, {
      startsAt: inDays(-10),
      endsAt: inDays(100),
    });
    const before = await tenantState(h.db, t.tenantId);
    const patch = (id: string, body: UpdateMembershipBody) =>
      t.owner.api.memberships.update({ params: ids(t.tenantId, id), body });
    expectInvalid(await patch(second.membershipId, { startsAt: inDays(-1) }), ['body.startsAt']);
    expectInvalid(await patch(second.membershipId, { endsAt: inDays(30) }), ['body.endsAt']);
    expectInvalid(await patch(teacher.membershipId, { role: 'OWNER' }), ['body.startsAt', 'body.endsAt']);
    expectInvalid(await patch(teacher.membershipId, { role: 'OWNER', endsAt: null }), ['body.startsAt']);
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    const owner = await patch(teacher.membershipId, { role: 'OWNER', startsAt: null, endsAt: null });
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({
      data: { role: 'OWNER', status: 'ACTIVE', startsAt: null, endsAt: null },
    });
    // Clearing what an OWNER does not have changes nothing, and is no error.
    expect((await patch(second.membershipId, { startsAt: null })).status).toBe(200);
  });

  it('the last ACTIVE OWNER ended or scheduled away with its demotion: 409 LAST_OWNER; with another, allowed', async () => {
    const t = await createTenantFixture(h);
    const params = ids(t.tenantId, t.ownerMembershipId);
    const before = await tenantState(h.db, t.tenantId);
    for (const body of [
      { role: 'ADMIN', endsAt: inDays(-1) },
      { role: 'ADMIN', startsAt: inDays(1) },
      { role: 'STUDENT', startsAt: inDays(-1), endsAt: inDays(1) },
    ] as const)
      expectError(await t.owner.api.memberships.update({ params, body }), 409, 'LAST_OWNER');
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    await addMember(h, t.tenantId, 'OWNER');
    const res = await t.owner.api.memberships.update({ params, body: { role: 'ADMIN', endsAt: inDays(-1) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { role: 'ADMIN', status: 'ENDED' } });
  });

  it('the hierarchy comes first: an ADMIN changing an OWNER, or giving OWNER, is 403 whatever the dates', async () => {
    const t = await createTenantFixture(h);
    const admin = await addMember(h, t.tenantId, 'ADMIN');
    const student = await addMember(h, t.tenantId, 'STUDENT');
    const before = await tenantState(h.db, t.tenantId);
    const patch = (id: string, body: UpdateMembershipBody) =>
      admin.actor.api.memberships.update({ params: ids(t.tenantId, id), body });
    expectError(await patch(t.ownerMembershipId, { endsAt: inDays(-1) }), 403, 'ROLE_HIERARCHY_VIOLATION');
    expectError(await patch(t.ownerMembershipId, { startsAt: null }), 403, 'ROLE_HIERARCHY_VIOLATION');
    expectError(await patch(student.membershipId, { role: 'OWNER' }), 403, 'ROLE_HIERARCHY_VIOLATION');
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    // At or below its own level, an ADMIN may set terms, its own included.
    expect((await patch(student.membershipId, { endsAt: inDays(30) })).status).toBe(200);
    expect((await patch(admin.membershipId, { endsAt: inDays(30) })).status).toBe(200);
  });

  it('a stale If-Match: 412 before any check of the dates, nothing changed', async () => {
    const t = await createTenantFixture(h);
    const m = await addMember(h, t.tenantId, 'STUDENT');
    const error = await sdkOf(h, t.owner)
      .memberships.update(t.tenantId, m.membershipId, { endsAt: inDays(5) }, { ifMatch: 9 })
      .catch((e: unknown) => e);
    expect(isApiError(error, 'PRECONDITION_FAILED')).toBe(true);
    expect((await sdkOf(h, t.owner).memberships.get(t.tenantId, m.membershipId)).endsAt).toBeNull();
  });
});
