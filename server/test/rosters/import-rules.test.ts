import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships } from '../../src/db/schema.js';
import { createSuperAdmin, unique } from '../support/factories.js';
import {
  answerOf,
  csvOf,
  eventsOf,
  importIdIn,
  importOf,
  membersOf,
  postCsv,
  type RosterServer,
  schoolWith,
  startRosterServer,
  students,
} from './import-helpers.js';

/** The rules of an import over HTTP: hierarchy, sync, the removal limit, dry run, all or nothing, audit. */
let h: RosterServer;
beforeAll(async () => {
  h = await startRosterServer();
});
afterAll(() => h?.close());

const school = (extra = 3) => schoolWith(h, extra);

const rolesOf = async (tenantId: string) =>
  Object.fromEntries((await membersOf(h.db, tenantId)).map((m) => [m.email, m.role]));

describe('the hierarchy, row by row', () => {
  it("an ADMIN's file can neither make nor change an OWNER; an OWNER listed unchanged is fine", async () => {
    const s = await school(1);
    const newcomer = `${unique('o')}@example.test`;
    const csv = csvOf(
      'email,role',
      `${s.owner.email},OWNER`,
      `${newcomer},OWNER`,
      `${s.emails[2]},TEACHER`,
      `${s.owner.email.replace('@', '+x@')},student`,
    );
    const before = await rolesOf(s.tenantId);
    const { status, body } = await answerOf(await postCsv(h, s.tenantId, csv, { token: s.admin.token }));
    expect(status).toBe(409);
    expect(body.error.details).toEqual([
      expect.objectContaining({ row: 3, column: 'role', code: 'ROLE_HIERARCHY_VIOLATION' }),
    ]);
    expect(await rolesOf(s.tenantId)).toEqual(before);
    const demote = csvOf('email,role', `${s.owner.email},ADMIN`);
    const refused = await answerOf(await postCsv(h, s.tenantId, demote, { token: s.admin.token }));
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ row: 2, code: 'ROLE_HIERARCHY_VIOLATION' }),
    ]);
    // The OWNER's own file may.
    expect((await postCsv(h, s.tenantId, csv, { token: s.owner.token })).status).toBe(200);
    expect((await rolesOf(s.tenantId))[newcomer]).toBe('OWNER');
  });

  it("an ADMIN's sync leaves the OWNERs alone, each with a warning", async () => {
    const s = await school(2);
    const csv = csvOf('email', s.admin.email, ...s.emails.slice(2));
    const { status, body } = await answerOf(
      await postCsv(h, s.tenantId, csv, { token: s.admin.token, query: 'mode=sync' }),
    );
    expect(status).toBe(200);
    expect(body.data.summary).toMatchObject({ remove: 0, unchanged: 3 });
    expect(body.data.warnings).toEqual([expect.objectContaining({ row: null, code: 'NOT_REMOVED' })]);
    expect(body.data.warnings[0].message).toContain(s.owner.email);
  });
});

describe('sync', () => {
  it('removes the members the file does not name, never the caller', async () => {
    const s = await school(3);
    const [, , kept, ...gone] = s.emails;
    const csv = csvOf('email', s.admin.email, kept as string);
    const { status, body } = await answerOf(
      await postCsv(h, s.tenantId, csv, { token: s.owner.token, query: 'mode=sync&maxRemovalPercent=50' }),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.summary).toMatchObject({ remove: gone.length, unchanged: 2 });
    expect(Object.keys(await rolesOf(s.tenantId)).sort()).toEqual(
      [s.owner.email, s.admin.email, kept].sort(),
    );
  });

  it("leaves the directory's members to the directory: no row changes their role, a sync removes none", async () => {
    const s = await school(3);
    const [, , managed, dated, gone] = s.emails as [string, string, string, string, string];
    const ids = (await membersOf(h.db, s.tenantId))
      .filter((m) => m.email === managed || m.email === dated)
      .map((m) => m.id);
    await h.db
      .update(tenantMemberships)
      .set({ managedBy: 'scim' })
      .where(and(eq(tenantMemberships.tenantId, s.tenantId), inArray(tenantMemberships.id, ids)));
    const promote = csvOf('email,role', `${managed},TEACHER`);
    const refused = await answerOf(await postCsv(h, s.tenantId, promote, { token: s.owner.token }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ row: 2, column: 'role', code: 'MEMBERSHIP_MANAGED_BY_DIRECTORY' }),
    ]);
    // Its term dates stay a person's; unnamed, it stays, with a warning; the others go.
    const csv = csvOf('email,role,endsAt', `${s.admin.email},,`, `${dated},STUDENT,2030-07-31T00:00:00Z`);
    const { status, body } = await answerOf(
      await postCsv(h, s.tenantId, csv, { token: s.owner.token, query: 'mode=sync&maxRemovalPercent=100' }),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.warnings).toEqual([
      expect.objectContaining({
        code: 'NOT_REMOVED',
        message: expect.stringContaining("tenant's directory"),
      }),
    ]);
    const after = await membersOf(h.db, s.tenantId);
    expect(after.map((m) => m.email).sort()).toEqual([s.owner.email, s.admin.email, managed, dated].sort());
    expect(after.find((m) => m.email === dated)?.endsAt).toEqual(new Date('2030-07-31T00:00:00Z'));
    expect(after.map((m) => m.email)).not.toContain(gone);
  });

  it('never the last ACTIVE OWNER, and no row may demote it', async () => {
    const s = await school(1);
    const root = await createSuperAdmin(h);
    const empty = csvOf('email,role', `${unique('n')}@example.test,student`);
    const { status, body } = await answerOf(
      await postCsv(h, s.tenantId, empty, { token: root.token, query: 'mode=sync&maxRemovalPercent=100' }),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.warnings).toEqual([expect.objectContaining({ code: 'NOT_REMOVED' })]);
    expect((await rolesOf(s.tenantId))[s.owner.email]).toBe('OWNER');
    const demote = await answerOf(
      await postCsv(h, s.tenantId, csvOf('email,role', `${s.owner.email},TEACHER`), { token: root.token }),
    );
    expect(demote.body.error.details).toEqual([expect.objectContaining({ row: 2, code: 'LAST_OWNER' })]);
  });

  it('refuses to remove more than maxRemovalPercent of the members (default 10), with the counts', async () => {
    const s = await school(8);
    const truncated = csvOf('email', ...s.emails.slice(0, 5));
    const before = await rolesOf(s.tenantId);
    const refused = await answerOf(
      await postCsv(h, s.tenantId, truncated, { token: s.owner.token, query: 'mode=sync' }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('ROSTER_REMOVAL_LIMIT');
    expect(refused.body.error.message).toMatch(/remove 5 of 10 members; maxRemovalPercent=10 allows 1/);
    expect(await rolesOf(s.tenantId)).toEqual(before);
    const recorded = await importOf(h, s.tenantId, importIdIn(refused.body.error.message), s.owner.token);
    expect(recorded.body.data).toMatchObject({
      status: 'FAILED',
      summary: { remove: 5, unchanged: 5 },
      failure: { code: 'ROSTER_REMOVAL_LIMIT' },
    });
    const raised = await postCsv(h, s.tenantId, truncated, {
      token: s.owner.token,
      query: 'mode=sync&maxRemovalPercent=50',
    });
    expect(raised.status).toBe(200);
    expect(Object.keys(await rolesOf(s.tenantId))).toHaveLength(5);
    const invalid = await postCsv(h, s.tenantId, truncated, {
      token: s.owner.token,
      query: 'mode=sync&maxRemovalPercent=101',
    });
    expect(invalid.status).toBe(400);
  });
});

describe('dry run, all or nothing, twice', () => {
  it('a dry run answers what applying does, and changes nothing, audit trail included', async () => {
    const s = await school(3);
    const p = unique('dry');
    const csv = csvOf(
      'email,role,endsAt',
      `${s.emails[2]},TEACHER,`,
      `${s.emails[3]},student,2031-01-01`,
      ...students(2, p).map((row) => `${row},`),
    );
    const members = await membersOf(h.db, s.tenantId);
    const events = await eventsOf(h.db, s.tenantId);
    const query = 'mode=sync&maxRemovalPercent=50';
    const dry = await answerOf(
      await postCsv(h, s.tenantId, csv, { token: s.owner.token, query: `${query}&dryRun=true` }),
    );
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ dryRun: true, status: 'SUCCEEDED', failure: null });
    expect(dry.body.data.summary).toEqual({
      create: 2,
      updateRole: 1,
      updateTerm: 1,
      remove: 2,
      unchanged: 0,
      invalid: 0,
      guardianInvitations: 0,
    });
    expect(await membersOf(h.db, s.tenantId)).toEqual(members);
    expect(await eventsOf(h.db, s.tenantId)).toEqual(events);
    const applied = await answerOf(await postCsv(h, s.tenantId, csv, { token: s.owner.token, query }));
    expect(applied.body.data.summary).toEqual(dry.body.data.summary);
  });

  it('a dry run of a file that would be refused says why, with 200', async () => {
    const s = await school(1);
    const csv = csvOf('email,role', `${unique('x')}@example.test,wizard`);
    const { status, body } = await answerOf(
      await postCsv(h, s.tenantId, csv, { token: s.owner.token, query: 'dryRun=true' }),
    );
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      status: 'SUCCEEDED',
      summary: { invalid: 1 },
      failure: { code: 'ROSTER_INVALID' },
    });
    expect(body.data.errors).toEqual([
      expect.objectContaining({ row: 2, column: 'role', code: 'INVALID_ROLE' }),
    ]);
  });

  it('one invalid row and nothing is applied; the import is recorded FAILED with its errors', async () => {
    const s = await school(1);
    const csv = csvOf('email,role', ...students(5, unique('all')), `${unique('bad')}@example.test,wizard`);
    const before = await membersOf(h.db, s.tenantId);
    const { status, body } = await answerOf(await postCsv(h, s.tenantId, csv, { token: s.owner.token }));
    expect(status).toBe(409);
    expect(await membersOf(h.db, s.tenantId)).toEqual(before);
    const recorded = await importOf(h, s.tenantId, importIdIn(body.error.message), s.owner.token);
    expect(recorded.body.data).toMatchObject({
      status: 'FAILED',
      dryRun: false,
      summary: { create: 5, invalid: 1 },
      errors: [expect.objectContaining({ row: 7, code: 'INVALID_ROLE' })],
      failure: { code: 'ROSTER_INVALID' },
    });
  });
});
