import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import {
  answerOf,
  csvOf,
  eventsOf,
  membersOf,
  postCsv,
  type RosterServer,
  schoolWith,
  startRosterServer,
  students,
} from './import-helpers.js';

/** What an import writes: one audit event per change, as single requests write them; nothing the second time. */
let h: RosterServer;
beforeAll(async () => {
  h = await startRosterServer();
});
afterAll(() => h?.close());

const school = (extra: number) => schoolWith(h, extra);

describe('the audit trail', () => {
  it('the same file twice: the second changes nothing and writes no event', async () => {
    const s = await school(0);
    const csv = csvOf(
      'email,role,startsAt',
      ...students(3, unique('twice')).map((row) => `${row},2030-09-01`),
    );
    const first = await answerOf(await postCsv(h, s.tenantId, csv, { token: s.owner.token }));
    expect(first.body.data.summary.create).toBe(3);
    const members = await membersOf(h.db, s.tenantId);
    const events = await eventsOf(h.db, s.tenantId);
    const second = await answerOf(await postCsv(h, s.tenantId, csv, { token: s.owner.token }));
    expect(second.body.data.summary).toEqual({
      create: 0,
      updateRole: 0,
      updateTerm: 0,
      remove: 0,
      unchanged: 3,
      invalid: 0,
      guardianInvitations: 0,
    });
    expect(await membersOf(h.db, s.tenantId)).toEqual(members);
    expect(await eventsOf(h.db, s.tenantId)).toEqual(events);
  });

  it('one event per change, numbered on, by the caller and the request', async () => {
    const s = await school(2);
    const newcomer = `${unique('a')}@example.test`;
    const csv = csvOf(
      'email,role,endsAt',
      `${newcomer},teacher,`,
      `${s.emails[2]},TEACHER,`,
      `${s.emails[3]},STUDENT,2031-01-01`,
      `${s.owner.email},OWNER,`,
      `${s.admin.email},ADMIN,`,
    );
    const before = await eventsOf(h.db, s.tenantId);
    const res = await postCsv(h, s.tenantId, csv, { token: s.owner.token });
    expect(res.status).toBe(200);
    const added = (await eventsOf(h.db, s.tenantId)).slice(before.length);
    const last = before.at(-1)?.sequence ?? 0;
    expect(added.map((e) => [e.sequence, e.action])).toEqual([
      [last + 1, 'membership.created'],
      [last + 2, 'membership.role_changed'],
      [last + 3, 'membership.terms_changed'],
    ]);
    const requestId = res.headers.get('x-request-id');
    for (const event of added) expect(event).toMatchObject({ actorUserId: s.owner.userId, requestId });
    const removal = await postCsv(
      h,
      s.tenantId,
      csvOf('email', s.owner.email, s.admin.email, newcomer, s.emails[3] as string),
      {
        token: s.owner.token,
        query: 'mode=sync&maxRemovalPercent=50',
      },
    );
    expect(removal.status).toBe(200);
    expect((await eventsOf(h.db, s.tenantId)).at(-1)?.action).toBe('membership.removed');
  });
});
