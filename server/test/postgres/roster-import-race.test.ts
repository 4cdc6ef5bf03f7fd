import { ROSTER_ROWS_IN_REQUEST_MAX } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerOf,
  csvOf,
  eventsOf,
  importOf,
  membersOf,
  postCsv,
  type RosterServer,
  startRosterServer,
  students,
} from '../rosters/import-helpers.js';
import { addMember, createTenantFixture, type TenantFixture, unique } from '../support/factories.js';
import { untilWaitingForLocks } from '../support/lock-waits.js';

// PostgreSQL only: on PGlite's one connection an import and a single write can never overlap, so
// a missing lock would pass there. Here the import is held inside its transaction (applied, not
// committed: the tenant's lock held), and the other requests are sent meanwhile, each on its own
// connection; they are seen waiting for the lock in pg_stat_activity, never waited for on a timer.
let h: RosterServer;
beforeAll(async () => {
  h = await startRosterServer();
});
afterAll(() => h?.close());

const LARGE = ROSTER_ROWS_IN_REQUEST_MAX + 500;

const api = (path: string, token: string, method = 'GET', body?: unknown) =>
  fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

/** Starts a large import of `rows` and holds it once applied, its transaction open. */
async function heldImport(t: TenantFixture, rows: string[]) {
  const applied = h.holds.at('applied');
  const res = await answerOf(
    await postCsv(h, t.tenantId, csvOf('email,role', ...rows), { token: t.owner.token }),
  );
  expect(res.status).toBe(202);
  await applied.reached;
  return { importId: res.body.data.importId as string, release: applied.release };
}

describe('an import racing single-membership writes', () => {
  it('each write lands entirely after the import it waited for; readers see all of it or none', async () => {
    const t = await createTenantFixture(h);
    const changed = await addMember(h, t.tenantId, 'STUDENT');
    const removed = await addMember(h, t.tenantId, 'STUDENT');
    const prefix = unique('race');
    // The file makes `changed` a TEACHER and keeps `removed`; the single writes then make `changed`
    // an ADMIN, remove `removed` and add a newcomer the file does not know.
    const rows = [
      `${changed.actor.email},TEACHER`,
      `${removed.actor.email},STUDENT`,
      ...students(LARGE - 2, prefix),
    ];
    const before = await membersOf(h.db, t.tenantId);
    const eventsBefore = await eventsOf(h.db, t.tenantId);
    const held = await heldImport(t, rows);

    const members = `/tenants/${t.tenantId}/memberships`;
    const list = await answerOf(await api(`${members}?limit=100&includeTotal=true`, t.owner.token));
    expect(list.body.meta.total).toBe(before.length);
    const newcomer = `${unique('new')}@example.test`;
    const writes = Promise.all([
      api(`${members}/${changed.membershipId}`, t.owner.token, 'PATCH', { role: 'ADMIN' }).then(answerOf),
      api(`${members}/${removed.membershipId}`, t.owner.token, 'DELETE'),
      api(members, t.owner.token, 'POST', { email: newcomer, role: 'STUDENT' }).then(answerOf),
    ]);
    await untilWaitingForLocks(h.db, 3);
    // Still none of the import, while the writes wait behind it.
    const meanwhile = await answerOf(await api(`${members}?limit=1&includeTotal=true`, t.owner.token));
    expect(meanwhile.body.meta.total).toBe(before.length);
    held.release();
    const [patched, deleted, posted] = await writes;
    await h.jobs.idle();

    // After the import's commit: the PATCH changed the TEACHER the import made (version 3).
    expect(patched).toMatchObject({ status: 200, body: { data: { role: 'ADMIN', version: 3 } } });
    expect(deleted.status).toBe(204);
    expect(posted.status).toBe(201);
    const after = await membersOf(h.db, t.tenantId);
    expect(after).toHaveLength(before.length + LARGE - 2 + 1 - 1);
    const got = await importOf(h, t.tenantId, held.importId, t.owner.token);
    expect(got.body.data).toMatchObject({
      status: 'SUCCEEDED',
      summary: { create: LARGE - 2, updateRole: 1, unchanged: 1 },
    });
    // The trail: the import's events, then the three writes', numbered without a gap.
    const events = (await eventsOf(h.db, t.tenantId)).slice(eventsBefore.length);
    expect(events.map((e) => e.sequence)).toEqual(
      events.map((_, i) => (eventsBefore.at(-1)?.sequence ?? 0) + i + 1),
    );
    expect(
      events
        .slice(-3)
        .map((e) => e.action)
        .sort(),
    ).toEqual(['membership.created', 'membership.removed', 'membership.role_changed']);
  });
});

describe('two imports at once', () => {
  it('are serialised: the second plans on what the first committed', async () => {
    const t = await createTenantFixture(h);
    const rows = students(LARGE, unique('first'));
    const held = await heldImport(t, rows);
    // The same rows again, small enough for its request: it waits for the first one's lock.
    const second = postCsv(h, t.tenantId, csvOf('email,role', ...rows.slice(0, 500)), {
      token: t.owner.token,
    }).then(answerOf);
    await untilWaitingForLocks(h.db, 1);
    held.release();
    const { status, body } = await second;
    await h.jobs.idle();
    expect(status).toBe(200);
    expect(body.data.summary).toMatchObject({ create: 0, unchanged: 500 });
    expect(await membersOf(h.db, t.tenantId)).toHaveLength(LARGE + 1);
  });

  it('two background imports of one tenant run one after the other', async () => {
    const t = await createTenantFixture(h);
    const rows = students(LARGE, unique('twice'));
    const held = await heldImport(t, rows);
    const second = await answerOf(
      await postCsv(h, t.tenantId, csvOf('email,role', ...rows), { token: t.owner.token }),
    );
    await untilWaitingForLocks(h.db, 1);
    held.release();
    await h.jobs.idle();
    const [first, again] = await Promise.all(
      [held.importId, second.body.data.importId].map((id) => importOf(h, t.tenantId, id, t.owner.token)),
    );
    expect(first?.body.data.summary).toMatchObject({ create: LARGE });
    expect(again?.body.data).toMatchObject({ status: 'SUCCEEDED', summary: { create: 0, unchanged: LARGE } });
  });
});

describe('a write that waits too long for an import', () => {
  it('answers 503 at the lock timeout, before the request deadline, and the import goes on', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const held = await heldImport(t, students(LARGE, unique('long')));
    const path = `/tenants/${t.tenantId}/memberships/${member.membershipId}`;
    const started = performance.now();
    const refused = await answerOf(await api(path, t.owner.token, 'PATCH', { role: 'TEACHER' }));
    const waited = performance.now() - started;
    // lock_timeout (3 s): the request's own 503, not the deadline's (4 s), which would have
    // replaced every connection of the pool, the import's among them.
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE' } } });
    expect(waited).toBeGreaterThanOrEqual(2_500);
    expect(waited).toBeLessThan(4_000);
    held.release();
    await h.jobs.idle();
    const got = await importOf(h, t.tenantId, held.importId, t.owner.token);
    expect(got.body.data).toMatchObject({ status: 'SUCCEEDED', summary: { create: LARGE } });
    const retried = await answerOf(await api(path, t.owner.token, 'PATCH', { role: 'TEACHER' }));
    expect(retried.status).toBe(200);
  });
});
