import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createActor, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { rosterRow, rowsFor, runImport, storedEvents, storedMembers } from './engine-helpers.js';

/* mode=sync: who is removed, who never is (the caller, those above the caller, the last ACTIVE OWNER), and the removal limit. */

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const address = () => `${unique('pupil')}@school.test`;

describe('mode=sync', () => {
  it('removes every member no row names, whatever their status, but never the caller', async () => {
    const t = await createTenantFixture(h);
    const { actor: admin } = await addMember(h, t.tenantId, 'ADMIN');
    const kept = await addMember(h, t.tenantId, 'TEACHER');
    const gone = await Promise.all([
      addMember(h, t.tenantId, 'STUDENT'),
      addMember(h, t.tenantId, 'STUDENT'),
      addMember(h, t.tenantId, 'TEACHER'),
    ]);
    await h.db.execute(
      sql`update tenant_memberships set suspended_at = now() where id = ${gone[0]?.membershipId}::uuid`,
    );
    await h.db.execute(sql`update tenant_memberships set ends_at = now() - interval '1 day'
      where id = ${gone[1]?.membershipId}::uuid`);
    const plan = await runImport(h.db, t.tenantId, [rosterRow(2, { email: kept.actor.email })], {
      caller: admin,
      role: 'ADMIN',
      mode: 'sync',
    });
    expect(plan.summary).toEqual({
      create: 0,
      updateRole: 0,
      updateTerm: 0,
      remove: 3,
      unchanged: 1,
      guardianInvitations: 0,
    });
    // The OWNER is above the ADMIN's role: it stays, with a warning that names it.
    expect(plan.warnings).toEqual([
      { row: null, column: null, code: 'NOT_REMOVED', message: expect.stringContaining(t.owner.email) },
    ]);
    const left = await storedMembers(h.db, t.tenantId);
    expect([...left.keys()].sort()).toEqual([t.owner.email, admin.email, kept.actor.email].sort());
    const removed = (await storedEvents(h.db, t.tenantId)).slice(-3);
    expect(removed.map((e) => [e.action, e.target_id])).toEqual(
      gone
        .map((g) => ['membership.removed', g.membershipId])
        .sort((a, b) => ((a[1] as string) < (b[1] as string) ? -1 : 1)),
    );
    expect(removed.every((e) => e.after === null && e.before !== null)).toBe(true);
  });

  it('add mode removes nobody', async () => {
    const t = await createTenantFixture(h);
    await addMember(h, t.tenantId, 'STUDENT');
    const plan = await runImport(h.db, t.tenantId, rowsFor([address()]), { caller: t.owner });
    expect(plan.summary.remove).toBe(0);
    expect(plan.removalLimit).toEqual({ removals: 0, members: 2, allowed: 2, exceeded: false });
  });
});

describe('the last ACTIVE OWNER', () => {
  it("a super administrator's sync that names no OWNER keeps every ACTIVE OWNER, with a warning each", async () => {
    const t = await createTenantFixture(h);
    const { actor: second } = await addMember(h, t.tenantId, 'OWNER');
    const suspended = await addMember(h, t.tenantId, 'OWNER');
    await h.db.execute(
      sql`update tenant_memberships set suspended_at = now() where id = ${suspended.membershipId}::uuid`,
    );
    const superAdmin = await createActor(h, { superAdmin: true });
    const plan = await runImport(h.db, t.tenantId, rowsFor([address()]), {
      caller: superAdmin,
      role: 'SUPER_ADMIN',
      mode: 'sync',
    });
    // The suspended OWNER administers nothing: it goes, as anyone else would.
    expect(plan.summary).toMatchObject({ create: 1, remove: 1 });
    expect(plan.warnings.map((w) => w.code)).toEqual(['NOT_REMOVED', 'NOT_REMOVED']);
    expect(plan.warnings.map((w) => w.message).join(' ')).toContain(second.email);
    const left = await storedMembers(h.db, t.tenantId);
    expect(left.has(t.owner.email) && left.has(second.email)).toBe(true);
    expect(left.has(suspended.actor.email)).toBe(false);
  });

  it('removes OWNERs while another ACTIVE OWNER stays', async () => {
    const t = await createTenantFixture(h);
    const { actor: other } = await addMember(h, t.tenantId, 'OWNER');
    const superAdmin = await createActor(h, { superAdmin: true });
    const plan = await runImport(h.db, t.tenantId, [rosterRow(2, { email: other.email })], {
      caller: superAdmin,
      role: 'SUPER_ADMIN',
      mode: 'sync',
    });
    expect(plan.summary.remove).toBe(1);
    expect(plan.warnings).toEqual([]);
  });

  it('a row that demotes the last ACTIVE OWNER is LAST_OWNER; with another one kept, it is not', async () => {
    const t = await createTenantFixture(h);
    const { actor: admin } = await addMember(h, t.tenantId, 'ADMIN');
    const demote = [
      rosterRow(2, { email: t.owner.email, role: 'ADMIN' }),
      rosterRow(3, { email: admin.email }),
    ];
    const plan = await runImport(h.db, t.tenantId, demote, { caller: t.owner, dryRun: true });
    expect(plan.errors).toEqual([
      {
        row: 2,
        column: 'role',
        code: 'LAST_OWNER',
        message: 'the tenant would be left without an ACTIVE OWNER',
      },
    ]);
    const handOver = [demote[0], rosterRow(3, { email: admin.email, role: 'OWNER' })].filter(
      (r) => r !== undefined,
    );
    const swapped = await runImport(h.db, t.tenantId, handOver, { caller: t.owner });
    expect(swapped.errors).toEqual([]);
    expect(swapped.summary.updateRole).toBe(2);
    expect((await storedMembers(h.db, t.tenantId)).get(admin.email)?.role).toBe('OWNER');
  });

  it('a sync whose rows demote an OWNER keeps the unnamed ACTIVE OWNER instead of refusing the row', async () => {
    const t = await createTenantFixture(h);
    const { actor: other } = await addMember(h, t.tenantId, 'OWNER');
    const superAdmin = await createActor(h, { superAdmin: true });
    const plan = await runImport(h.db, t.tenantId, [rosterRow(2, { email: other.email, role: 'TEACHER' })], {
      caller: superAdmin,
      role: 'SUPER_ADMIN',
      mode: 'sync',
      dryRun: true,
    });
    expect(plan.errors).toEqual([]);
    expect(plan.summary).toMatchObject({ updateRole: 1, remove: 0 });
    expect(plan.warnings).toEqual([
      { row: null, column: null, code: 'NOT_REMOVED', message: expect.stringContaining(t.owner.email) },
    ]);
  });
});

describe('the removal limit', () => {
  it('allows floor(members × percent / 100) removals, counting every membership before the import', async () => {
    const t = await createTenantFixture(h);
    const members = await Promise.all(Array.from({ length: 9 }, () => addMember(h, t.tenantId, 'STUDENT')));
    // 10 memberships: 10% allows 1, 19% still 1, 20% allows 2.
    const keepAllBut = (n: number) => rowsFor(members.slice(n).map((m) => m.actor.email));
    const one = await runImport(h.db, t.tenantId, keepAllBut(1), {
      caller: t.owner,
      mode: 'sync',
      maxRemovalPercent: 10,
      dryRun: true,
    });
    expect(one.removalLimit).toEqual({ removals: 1, members: 10, allowed: 1, exceeded: false });
    const two = await runImport(h.db, t.tenantId, keepAllBut(2), {
      caller: t.owner,
      mode: 'sync',
      maxRemovalPercent: 19,
    });
    expect(two.removalLimit).toEqual({ removals: 2, members: 10, allowed: 1, exceeded: true });
    expect((await storedMembers(h.db, t.tenantId)).size).toBe(10);
    const twenty = await runImport(h.db, t.tenantId, keepAllBut(2), {
      caller: t.owner,
      mode: 'sync',
      maxRemovalPercent: 20,
    });
    expect(twenty.removalLimit).toEqual({ removals: 2, members: 10, allowed: 2, exceeded: false });
    expect((await storedMembers(h.db, t.tenantId)).size).toBe(8);
  });

  it('an empty file cannot wipe a school: 0% allows no removal', async () => {
    const t = await createTenantFixture(h);
    await addMember(h, t.tenantId, 'STUDENT');
    const plan = await runImport(h.db, t.tenantId, [], {
      caller: t.owner,
      mode: 'sync',
      maxRemovalPercent: 0,
    });
    expect(plan.removalLimit).toEqual({ removals: 1, members: 2, allowed: 0, exceeded: true });
  });
});
