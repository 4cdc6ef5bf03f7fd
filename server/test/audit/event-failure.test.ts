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

const call = (method: string, path: string, body?: object) =>
  fetch(`${h.baseUrl}/tenants/${t.tenantId}${path}`, {
    method,
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    ...(body && { body: JSON.stringify(body) }),
  });

const membershipsOf = async (userId: string) =>
  (await h.db.execute(
    sql`select role from tenant_memberships where tenant_id = ${t.tenantId} and user_id = ${userId}`,
  )) as unknown as { role: string }[] | { rows: { role: string }[] };

const rowsOf = <T>(result: T[] | { rows: T[] }): T[] => (Array.isArray(result) ? result : result.rows);

async function expectFailedRequest(res: Response) {
  expect(res.status).toBe(500);
  const body = await res.json();
  expect(body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' } });
  expect(JSON.stringify(body)).not.toContain('refused');
}

describe('a tenant write whose audit event fails', () => {
  it('adds no member', async () => {
    const person = await createActor(h);
    await expectFailedRequest(await call('POST', '/memberships', { userId: person.userId, role: 'STUDENT' }));
    expect(rowsOf(await membershipsOf(person.userId))).toEqual([]);
  });

  it('removes no member', async () => {
    // A TEACHER: a student's removal looks for guardian links before the COMMIT.
    const { actor: person, membershipId } = await addMember(h, t.tenantId, 'TEACHER');
    await expectFailedRequest(await call('DELETE', `/memberships/${membershipId}`));
    expect(rowsOf(await membershipsOf(person.userId))).toEqual([{ role: 'TEACHER' }]);
  });

  it('changes no role', async () => {
    const { actor: person, membershipId } = await addMember(h, t.tenantId, 'STUDENT');
    await expectFailedRequest(await call('PATCH', `/memberships/${membershipId}`, { role: 'TEACHER' }));
    expect(rowsOf(await membershipsOf(person.userId))).toEqual([{ role: 'STUDENT' }]);
  });
});
