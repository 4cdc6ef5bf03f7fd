import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/rows.js';
import { pseudonymOf } from '../../src/modules/erasure/pseudonym.js';
import { sdkAs } from '../support/audit-events.js';
import { addMember, createActor, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { rosterRow, rowsFor, runImport, storedEvents, storedMembers } from './engine-helpers.js';

/*
 * The roster engine (planRoster, applyRosterPlan) on a real database: whom a row names, what it
 * does to them, the hierarchy per row, idempotence and the events. Sync, the last OWNER and the
 * removal limit: engine-sync.test.ts.
 */

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const address = (prefix = 'pupil') => `${unique(prefix)}@school.test`;

describe('whom a row names', () => {
  it('makes an invited user of an unknown address, with the name the file gives, as add-by-email does', async () => {
    const t = await createTenantFixture(h);
    const email = address('New.Pupil');
    const plan = await runImport(h.db, t.tenantId, [rosterRow(2, { email, displayName: 'Ada Lovelace' })], {
      caller: t.owner,
    });
    expect(plan.summary).toEqual({
      create: 1,
      updateRole: 0,
      updateTerm: 0,
      remove: 0,
      unchanged: 0,
      guardianInvitations: 0,
    });
    const member = (await storedMembers(h.db, t.tenantId)).get(email.toLowerCase());
    expect(member).toMatchObject({
      email,
      subject: null,
      role: 'STUDENT',
      invited_display_name: 'Ada Lovelace',
    });
    expect(member?.search).toContain('Ada Lovelace');
    const shown = await sdkAs(h, t.owner).memberships.get(t.tenantId, member?.id as string);
    expect(shown.user).toEqual({ userId: member?.user_id, email, displayName: 'Ada Lovelace' });
  });

  it("finds a known person by the address's canonical form, and never renames them", async () => {
    const t = await createTenantFixture(h);
    const person = await createActor(h, { name: 'Their Own Name' });
    const shouted = person.email.toUpperCase().replace('@EXAMPLE.TEST', '@Example.Test');
    await runImport(h.db, t.tenantId, [rosterRow(2, { email: shouted, displayName: 'Another Name' })], {
      caller: t.owner,
    });
    const member = (await storedMembers(h.db, t.tenantId)).get(person.email.toLowerCase());
    expect(member).toMatchObject({ user_id: person.userId, subject: person.subject });
    const holders = rowsOf<{ users: number }>(
      await h.db.execute(
        sql`select count(*)::int as users from users where lower(email) = ${person.email.toLowerCase()}`,
      ),
    );
    expect(holders).toEqual([{ users: 1 }]);
    const shown = await sdkAs(h, t.owner).memberships.get(t.tenantId, member?.id as string);
    expect(shown.user.displayName).toBe('Their Own Name');
  });

  it('names a member by userId when the email is empty; a userId that is no member here is UNKNOWN_MEMBER', async () => {
    const t = await createTenantFixture(h);
    const { actor: pupil } = await addMember(h, t.tenantId, 'STUDENT');
    const stranger = await createActor(h);
    const plan = await runImport(
      h.db,
      t.tenantId,
      [
        rosterRow(2, { userId: pupil.userId, role: 'TEACHER' }),
        rosterRow(3, { userId: stranger.userId, role: 'TEACHER' }),
      ],
      { caller: t.owner, dryRun: true },
    );
    expect(plan.summary.updateRole).toBe(1);
    expect(plan.errors).toEqual([
      { row: 3, column: 'userId', code: 'UNKNOWN_MEMBER', message: expect.any(String) },
    ]);
  });

  it('an erased user is no one: not by id, and their pseudonymous address cannot be invited', async () => {
    const t = await createTenantFixture(h);
    const erased = await createActor(h);
    const pseudonym = pseudonymOf(erased.userId).email;
    await h.db.execute(sql`update users set erased_at = now(), email = ${pseudonym},
      email_canonical = ${pseudonym} where id = ${erased.userId}::uuid`);
    const plan = await runImport(
      h.db,
      t.tenantId,
      [rosterRow(2, { userId: erased.userId }), rosterRow(3, { email: pseudonym })],
      { caller: t.owner, dryRun: true },
    );
    expect(plan.errors.map(({ row, column, code }) => ({ row, column, code }))).toEqual([
      { row: 2, column: 'userId', code: 'UNKNOWN_MEMBER' },
      { row: 3, column: 'email', code: 'UNKNOWN_MEMBER' },
    ]);
  });

  it('a second row naming a member already named (by address, then by id) is refused', async () => {
    const t = await createTenantFixture(h);
    const { actor: pupil } = await addMember(h, t.tenantId, 'STUDENT');
    const plan = await runImport(
      h.db,
      t.tenantId,
      [rosterRow(2, { email: pupil.email }), rosterRow(3, { userId: pupil.userId, role: 'TEACHER' })],
      { caller: t.owner, dryRun: true },
    );
    expect(plan.errors).toEqual([
      { row: 3, column: 'userId', code: 'DUPLICATE_EMAIL', message: 'names the same member as row 2' },
    ]);
    expect(plan.summary.unchanged).toBe(1);
  });
});

describe('what a row does', () => {
  it('creates, changes the role (dates with it), changes the term, or leaves alone; suspension stays', async () => {
    const t = await createTenantFixture(h);
    const members = await Promise.all(
      ['STUDENT', 'STUDENT', 'TEACHER', 'TEACHER', 'STUDENT'].map((role) =>
        addMember(h, t.tenantId, role as 'STUDENT' | 'TEACHER'),
      ),
    );
    const [promoted, dated, kept, keptByEmptyRole, suspended] = members.map((m) => m.actor) as [
      (typeof members)[0]['actor'],
      ...(typeof members)[0]['actor'][],
    ];
    await h.db.execute(sql`update tenant_memberships set suspended_at = now(), suspension_reason = 'fees'
      where user_id = ${suspended?.userId}::uuid`);
    const newcomer = address();
    const starts = new Date('2030-09-01T00:00:00.000Z');
    const ends = new Date('2031-07-01T00:00:00.000Z');
    const rows = [
      rosterRow(2, { email: newcomer, role: 'TEACHER', startsAt: starts, endsAt: null }),
      rosterRow(3, { email: promoted?.email, role: 'TEACHER', endsAt: ends }),
      rosterRow(4, { email: dated?.email, endsAt: ends }),
      rosterRow(5, { email: kept?.email, role: 'TEACHER', startsAt: null }),
      rosterRow(6, { email: keptByEmptyRole?.email }),
      rosterRow(7, { email: suspended?.email, role: 'TEACHER' }),
    ];
    const plan = await runImport(h.db, t.tenantId, rows, { caller: t.owner });
    expect(plan.errors).toEqual([]);
    expect(plan.summary).toEqual({
      create: 1,
      updateRole: 2,
      updateTerm: 1,
      remove: 0,
      unchanged: 2,
      guardianInvitations: 0,
    });

    const stored = await storedMembers(h.db, t.tenantId);
    const of = (email: string | undefined) => stored.get((email as string).toLowerCase());
    expect(of(newcomer)).toMatchObject({
      role: 'TEACHER',
      starts_at: starts.toISOString(),
      ends_at: null,
      version: 1,
    });
    expect(of(promoted?.email)).toMatchObject({ role: 'TEACHER', ends_at: ends.toISOString(), version: 2 });
    expect(of(dated?.email)).toMatchObject({ role: 'STUDENT', ends_at: ends.toISOString(), version: 2 });
    expect(of(kept?.email)).toMatchObject({ role: 'TEACHER', version: 1 });
    expect(of(keptByEmptyRole?.email)).toMatchObject({ role: 'TEACHER', version: 1 });
    expect(of(suspended?.email)).toMatchObject({ role: 'TEACHER', version: 2 });
    expect(of(suspended?.email)?.suspended_at).not.toBeNull();

    const events = (await storedEvents(h.db, t.tenantId)).slice(-4);
    expect(events.map((e) => e.action)).toEqual([
      'membership.created',
      'membership.role_changed',
      'membership.terms_changed',
      'membership.role_changed',
    ]);
  });

  it('refuses dates out of order once combined with the kept one, and dates on an OWNER', async () => {
    const t = await createTenantFixture(h);
    const { actor: pupil } = await addMember(h, t.tenantId, 'STUDENT');
    await h.db.execute(sql`update tenant_memberships set ends_at = '2030-01-01T00:00:00Z'
      where user_id = ${pupil.userId}::uuid`);
    const plan = await runImport(
      h.db,
      t.tenantId,
      [
        rosterRow(2, { email: pupil.email, startsAt: new Date('2031-01-01T00:00:00Z') }),
        rosterRow(3, { email: address(), role: 'OWNER', endsAt: new Date('2031-01-01T00:00:00Z') }),
        rosterRow(4, { email: t.owner.email, startsAt: new Date('2020-01-01T00:00:00Z') }),
      ],
      { caller: t.owner, dryRun: true },
    );
    expect(plan.errors.map(({ row, column, code }) => ({ row, column, code }))).toEqual([
      { row: 2, column: 'startsAt', code: 'INVALID_TERM' },
      { row: 3, column: 'endsAt', code: 'INVALID_TERM' },
      { row: 4, column: 'startsAt', code: 'INVALID_TERM' },
    ]);
  });
});

describe('the hierarchy, row by row', () => {
  it("an ADMIN's file may not give OWNER nor change an OWNER, but may list the OWNERs as they are", async () => {
    const t = await createTenantFixture(h);
    const { actor: admin } = await addMember(h, t.tenantId, 'ADMIN');
    const { actor: coOwner } = await addMember(h, t.tenantId, 'OWNER');
    const { actor: teacher } = await addMember(h, t.tenantId, 'TEACHER');
    const rows = [
      rosterRow(2, { email: t.owner.email, role: 'OWNER' }),
      rosterRow(3, { email: coOwner.email }),
      rosterRow(4, { email: address(), role: 'OWNER' }),
      rosterRow(5, { email: coOwner.email.toUpperCase(), role: 'ADMIN' }),
      rosterRow(6, { email: teacher.email, role: 'OWNER' }),
      rosterRow(7, { email: teacher.email.replace('@', '+x@'), role: 'ADMIN' }),
    ];
    // Row 5 names row 3's member again: a duplicate, whatever it asks.
    const plan = await runImport(h.db, t.tenantId, rows, { caller: admin, role: 'ADMIN', dryRun: true });
    expect(plan.errors.map(({ row, column, code }) => ({ row, column, code }))).toEqual([
      { row: 4, column: 'role', code: 'ROLE_HIERARCHY_VIOLATION' },
      { row: 5, column: 'email', code: 'DUPLICATE_EMAIL' },
      { row: 6, column: 'role', code: 'ROLE_HIERARCHY_VIOLATION' },
    ]);
    expect(plan.summary).toEqual({
      create: 1,
      updateRole: 0,
      updateTerm: 0,
      remove: 0,
      unchanged: 2,
      guardianInvitations: 0,
    });

    const demote = await runImport(
      h.db,
      t.tenantId,
      [rosterRow(2, { email: coOwner.email, role: 'ADMIN' })],
      {
        caller: admin,
        role: 'ADMIN',
        dryRun: true,
      },
    );
    expect(demote.errors).toEqual([
      {
        row: 2,
        column: 'role',
        code: 'ROLE_HIERARCHY_VIOLATION',
        message: 'You may not change a membership whose role is OWNER',
      },
    ]);
  });
});

describe('applying', () => {
  it('a second time changes nothing and writes no event', async () => {
    const t = await createTenantFixture(h);
    const { actor: pupil } = await addMember(h, t.tenantId, 'STUDENT');
    const rows = [
      ...rowsFor([address(), address(), address()], { role: 'TEACHER' }),
      rosterRow(5, { email: pupil.email, role: 'TEACHER', endsAt: new Date('2031-01-01T00:00:00Z') }),
    ];
    const first = await runImport(h.db, t.tenantId, rows, { caller: t.owner });
    expect(first.summary).toMatchObject({ create: 3, updateRole: 1 });
    const stored = await storedMembers(h.db, t.tenantId);
    const events = await storedEvents(h.db, t.tenantId);

    const second = await runImport(h.db, t.tenantId, rows, { caller: t.owner, mode: 'sync' });
    expect(second.summary).toEqual({
      create: 0,
      updateRole: 0,
      updateTerm: 0,
      remove: 0,
      unchanged: 4,
      guardianInvitations: 0,
    });
    expect(await storedMembers(h.db, t.tenantId)).toEqual(stored);
    expect(await storedEvents(h.db, t.tenantId)).toEqual(events);
  });

  it('a dry run changes nothing and answers what applying does', async () => {
    const t = await createTenantFixture(h);
    const rows = rowsFor([address(), address()]);
    const stored = await storedMembers(h.db, t.tenantId);
    const dry = await runImport(h.db, t.tenantId, rows, { caller: t.owner, dryRun: true });
    expect(await storedMembers(h.db, t.tenantId)).toEqual(stored);
    const applied = await runImport(h.db, t.tenantId, rows, { caller: t.owner });
    expect(applied.summary).toEqual(dry.summary);
  });
});
