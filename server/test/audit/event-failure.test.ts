import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Actor,
  addMember,
  createActor,
  createTenantFixture,
  type TenantFixture,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { type AnyResponse, expectError, membershipRow, tenantState } from '../support/memberships.js';

/*
 * A tenant write sends its audit event (and a removal its delete) without waiting for the answer:
 * they reach PostgreSQL with the COMMIT (db/pipelined.ts). An event that cannot be recorded must
 * still undo the whole change and fail the request.
 */
let h: TestServer;
let t: TenantFixture;
let owner: Actor;
beforeAll(async () => {
  h = await startTestServer();
  t = await createTenantFixture(h);
  owner = t.owner;
  await h.db.execute(
    sql.raw(`create function refuse_event() returns trigger language plpgsql as $$
      begin raise exception 'events of this tenant are refused'; end $$`),
  );
  await h.db.execute(
    sql.raw(`create trigger refuse_event before insert on audit_events for each row
      when (new.tenant_id = '${t.tenantId}'::uuid) execute function refuse_event()`),
  );
});
afterAll(async () => {
  await h?.db.execute(sql.raw('drop trigger if exists refuse_event on audit_events'));
  await h?.close();
});

/** A 500 INTERNAL_ERROR that does not tell the database's message. */
function expectFailed(res: AnyResponse) {
  expectError(res, 500, 'INTERNAL_ERROR');
  expect(JSON.stringify(res.body)).not.toContain('refused');
}

describe('a tenant write whose audit event fails', () => {
  it('adds no member', async () => {
    const person = await createActor(h);
    expectFailed(
      await owner.api.memberships.create({
        params: { tenantId: t.tenantId },
        body: { userId: person.userId, role: 'STUDENT' },
      }),
    );
    const state = await tenantState(h.db, t.tenantId);
    expect(state.filter((m) => m.userId === person.userId)).toEqual([]);
  });

  it('removes no member', async () => {
    // A TEACHER: a student's removal looks for guardian links before the COMMIT.
    const { membershipId } = await addMember(h, t.tenantId, 'TEACHER');
    const params = { tenantId: t.tenantId, tenantMembershipId: membershipId };
    expectFailed(await owner.api.memberships.remove({ params }));
    expect(await membershipRow(h.db, membershipId)).toMatchObject({ role: 'TEACHER' });
  });

  it('changes no role', async () => {
    const { membershipId } = await addMember(h, t.tenantId, 'STUDENT');
    const params = { tenantId: t.tenantId, tenantMembershipId: membershipId };
    expectFailed(await owner.api.memberships.update({ params, body: { role: 'TEACHER' } }));
    expect(await membershipRow(h.db, membershipId)).toMatchObject({ role: 'STUDENT' });
  });
});
