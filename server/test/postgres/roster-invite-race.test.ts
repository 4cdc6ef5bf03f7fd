import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockTenantForWrite } from '../../src/access/access.repository.js';
import type { Database } from '../../src/db/database.js';
import { applyRosterPlan } from '../../src/modules/rosters/roster-apply.repository.js';
import { planRoster } from '../../src/modules/rosters/roster-plan.js';
import { rowsOf } from '../../src/modules/webhooks/delivery-queue.repository.js';
import { createTenantFixture, type TenantFixture, unique } from '../factories.js';
import { startTestServer, type TestServer } from '../harness.js';
import { accessAs, auditOf, rosterRow, storedMembers } from '../roster-engine-helpers.js';

// PostgreSQL only: an import inviting an address while someone else's transaction (a first
// sign-in, another request) inserts the same address. Whoever commits first, the membership must
// be held by the one user of that address (issue 18's first part, for imports).

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** A user holding `email`, inserted by a transaction that stays open until `release` resolves. */
function signInHolding(db: Database, email: string, release: Promise<'commit' | 'rollback'>) {
  const userId = randomUUID();
  let inserted!: () => void;
  const insertedYet = new Promise<void>((resolve) => {
    inserted = resolve;
  });
  const done = db
    .transaction(async (tx) => {
      await tx.execute(sql`insert into users (id, subject, email, email_canonical, display_name)
        values (${userId}::uuid, ${unique('sub')}, ${email}, ${email.toLowerCase()}, 'Signed In')`);
      inserted();
      if ((await release) === 'rollback') tx.rollback();
    })
    .catch((error: unknown) => {
      if ((error as Error).message !== 'Rollback') throw error;
    });
  return { userId, insertedYet, done };
}

const usersOf = async (db: Database, email: string) =>
  rowsOf<{ id: string }>(
    await db.execute(sql`select id from users where email_canonical = ${email.toLowerCase()}`),
  );

/** Plans and applies one row inviting `email`; `between` runs after the plan, before applying. */
function importInviting(t: TenantFixture, email: string, between: () => Promise<void> = async () => {}) {
  return h.db.transaction(async (tx) => {
    await lockTenantForWrite(tx, t.tenantId, t.owner.subject);
    const plan = await planRoster(tx, {
      tenantId: t.tenantId,
      access: accessAs(t.tenantId, 'OWNER'),
      callerUserId: t.owner.userId,
      rows: [rosterRow(2, { email })],
      mode: 'add',
      maxRemovalPercent: 10,
    });
    expect(plan.summary.create).toBe(1);
    await between();
    await applyRosterPlan(tx, plan, auditOf(t.owner));
  });
}

describe('an import inviting an address that another transaction inserts meanwhile', () => {
  it('the other commits while the import waits on the address: the import adds that user', async () => {
    const t = await createTenantFixture(h);
    const email = `${unique('racer')}@school.test`;
    let release!: (how: 'commit') => void;
    const other = signInHolding(h.db, email, new Promise((resolve) => (release = resolve)));
    await other.insertedYet;
    let settled = false;
    const importing = importInviting(t, email).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Its insert of the address waits for the other transaction's.
    expect(settled).toBe(false);
    release('commit');
    await Promise.all([importing, other.done]);
    expect((await storedMembers(h.db, t.tenantId)).get(email.toLowerCase())?.user_id).toBe(other.userId);
    expect(await usersOf(h.db, email)).toEqual([{ id: other.userId }]);
  });

  it('the other rolls back: the import invites the address itself', async () => {
    const t = await createTenantFixture(h);
    const email = `${unique('racer')}@school.test`;
    let release!: (how: 'rollback') => void;
    const other = signInHolding(h.db, email, new Promise((resolve) => (release = resolve)));
    await other.insertedYet;
    const importing = importInviting(t, email);
    await new Promise((resolve) => setTimeout(resolve, 300));
    release('rollback');
    await Promise.all([importing, other.done]);
    const member = (await storedMembers(h.db, t.tenantId)).get(email.toLowerCase());
    expect(member).toMatchObject({ subject: null });
    expect(await usersOf(h.db, email)).toEqual([{ id: member?.user_id }]);
  });

  it('the other commits between the plan and the apply: the import adds that user', async () => {
    const t = await createTenantFixture(h);
    const email = `${unique('racer')}@school.test`;
    let userId = '';
    await importInviting(t, email, async () => {
      const other = signInHolding(h.db, email, Promise.resolve('commit'));
      userId = other.userId;
      await other.done;
    });
    expect((await storedMembers(h.db, t.tenantId)).get(email.toLowerCase())?.user_id).toBe(userId);
    expect(await usersOf(h.db, email)).toHaveLength(1);
  });

  it('the import commits first: the first sign-in claims the invited user and sees the membership', async () => {
    const t = await createTenantFixture(h);
    const email = `${unique('racer')}@school.test`;
    await importInviting(t, email);
    const subject = unique('sub');
    const me = await h.client(await h.token(subject, { email, emailVerified: true })).me.get();
    expect(me.status).toBe(200);
    expect(me.status === 200 && me.body.data.memberships.map((m) => m.tenantId)).toContain(t.tenantId);
    expect(await usersOf(h.db, email)).toHaveLength(1);
  });
});
