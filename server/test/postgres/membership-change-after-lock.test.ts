import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantEvents } from '../support/audit-events.js';
import { addMember, createActor, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { untilWaitingForLocks } from '../support/lock-waits.js';
import { type AnyResponse, expectError, membershipRow } from '../support/memberships.js';

// A change of one membership reads it, and a POST by userId reads the person, in the round trip
// that takes the tenant's lock (pipeline/handlers.ts: tenantWriteOn). These hold the lock in a transaction of their own, let the
// request queue behind it, change the membership there and commit: the request must decide on
// what was committed. A read sent before the lock, or answered from before the wait, would decide
// on a membership that is gone or has moved on. PostgreSQL only: PGlite has one connection.

let h: TestServer;
let sql: postgres.Sql;
beforeAll(async () => {
  h = await startTestServer();
  const url = h.database.url;
  if (!url) throw new Error('the PostgreSQL test database has no URL');
  sql = postgres(url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await h?.close();
});

const CHANGES = ['update', 'suspend', 'reactivate', 'remove'] as const;
type Change = (typeof CHANGES)[number];

async function tenantWithTeacher() {
  const tenant = await createTenantFixture(h);
  const teacher = await addMember(h, tenant.tenantId, 'TEACHER');
  return { ...tenant, membershipId: teacher.membershipId };
}

function send(
  t: Awaited<ReturnType<typeof tenantWithTeacher>>,
  change: Change,
  headers: { 'if-match'?: string } = {},
): Promise<AnyResponse> {
  const params = { tenantId: t.tenantId, tenantMembershipId: t.membershipId };
  const { memberships } = t.owner.api;
  switch (change) {
    case 'update':
      return memberships.update({ params, body: { role: 'STUDENT' }, headers });
    case 'suspend':
      return memberships.suspend({ params, body: {}, headers });
    case 'reactivate':
      return memberships.reactivate({ params, body: {}, headers });
    case 'remove':
      return memberships.remove({ params, headers });
  }
}

/** Sends the change while the tenant's row is locked elsewhere, and runs `meanwhile` there before the commit. */
async function queuedBehind(
  t: Awaited<ReturnType<typeof tenantWithTeacher>>,
  send: () => Promise<AnyResponse>,
  meanwhile: (tx: postgres.TransactionSql) => Promise<unknown>,
): Promise<AnyResponse> {
  let pending: Promise<AnyResponse> | undefined;
  await sql.begin(async (tx) => {
    await tx`select id from tenants where id = ${t.tenantId} for update`;
    pending = send();
    await untilWaitingForLocks(sql);
    await meanwhile(tx);
  });
  if (!pending) throw new Error('no request was sent');
  return pending;
}

const membershipEvents = async (t: Awaited<ReturnType<typeof tenantWithTeacher>>) =>
  (await tenantEvents(h, t.owner, t.tenantId)).filter((event) => event.target.id === t.membershipId);

describe('a membership change queued behind the tenant lock decides on what was committed meanwhile', () => {
  it.each(CHANGES)(
    '%s: the membership removed meanwhile is MEMBERSHIP_NOT_FOUND, and nothing is recorded',
    async (change) => {
      const t = await tenantWithTeacher();
      const eventsBefore = await membershipEvents(t);
      const res = await queuedBehind(
        t,
        () => send(t, change),
        (tx) => tx`delete from tenant_memberships where id = ${t.membershipId}`,
      );
      expectError(res, 404, 'MEMBERSHIP_NOT_FOUND');
      expect(await membershipRow(h.db, t.membershipId)).toBeUndefined();
      expect(await membershipEvents(t)).toEqual(eventsBefore);
    },
  );

  it.each(CHANGES)(
    '%s: an If-Match of the version changed meanwhile is PRECONDITION_FAILED',
    async (change) => {
      const t = await tenantWithTeacher();
      const before = await membershipRow(h.db, t.membershipId);
      if (!before) throw new Error('the TEACHER has no membership');
      const res = await queuedBehind(
        t,
        () => send(t, change, { 'if-match': `"${before.version}"` }),
        (tx) =>
          tx`update tenant_memberships set role = 'STUDENT', version = version + 1 where id = ${t.membershipId}`,
      );
      expectError(res, 412, 'PRECONDITION_FAILED');
      expect(await membershipRow(h.db, t.membershipId)).toMatchObject({
        role: 'STUDENT',
        version: before.version + 1,
      });
    },
  );
});

describe('a POST by userId queued behind the tenant lock decides on what was committed meanwhile', () => {
  const post = (t: Awaited<ReturnType<typeof tenantWithTeacher>>, userId: string) => () =>
    t.owner.api.memberships.create({ params: { tenantId: t.tenantId }, body: { role: 'STUDENT', userId } });

  it('the user added meanwhile is MEMBERSHIP_ALREADY_EXISTS, and the one membership stands', async () => {
    const t = await tenantWithTeacher();
    const person = await createActor(h);
    const res = await queuedBehind(
      t,
      post(t, person.userId),
      (tx) => tx`
      insert into tenant_memberships (id, tenant_id, user_id, role)
      values (gen_random_uuid(), ${t.tenantId}, ${person.userId}, 'TEACHER')`,
    );
    expectError(res, 409, 'MEMBERSHIP_ALREADY_EXISTS');
    const rows =
      await sql`select role from tenant_memberships where tenant_id = ${t.tenantId} and user_id = ${person.userId}`;
    expect(rows.map((row) => row.role)).toEqual(['TEACHER']);
  });

  it('the user erased meanwhile is USER_NOT_FOUND, and nothing is added', async () => {
    const t = await tenantWithTeacher();
    const person = await createActor(h);
    const res = await queuedBehind(
      t,
      post(t, person.userId),
      (tx) => tx`update users set erased_at = now() where id = ${person.userId}`,
    );
    expectError(res, 404, 'USER_NOT_FOUND');
    const rows =
      await sql`select 1 from tenant_memberships where tenant_id = ${t.tenantId} and user_id = ${person.userId}`;
    expect(rows).toHaveLength(0);
  });
});
