import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockTenantForWrite } from '../../src/access/access.repository.js';
import type { Database } from '../../src/db/database.js';
import { rowsOf } from '../../src/db/rows.js';
import { applyRosterPlan } from '../../src/modules/rosters/roster-apply.repository.js';
import { planRoster } from '../../src/modules/rosters/roster-plan.js';
import { accessAs, auditOf, rosterRow, storedMembers } from '../rosters/engine-helpers.js';
import { createTenantFixture, type TenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

// PostgreSQL only: an import inviting an address while someone else's transaction (a first
// sign-in, another request) inserts the same address. Whoever commits first, the membership must
// be held by the one user of that address (issue 18's first part, for imports).

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/**
 * A user holding `email`, inserted by a transaction that stays open until `release` resolves.
 * `insertedYet` gives its backend's pid: the one the import must be seen waiting on.
 */
function signInHolding(db: Database, email: string, release: Promise<'commit' | 'rollback'>) {
  const userId = randomUUID();
  let inserted!: (pid: number) => void;
  const insertedYet = new Promise<number>((resolve) => {
    inserted = resolve;
  });
  const done = db
    .transaction(async (tx) => {
      await tx.execute(sql`insert into users (id, subject, email, email_canonical, display_name)
        values (${userId}::uuid, ${unique('sub')}, ${email}, ${email.toLowerCase()}, 'Signed In')`);
      const [backend] = rowsOf<{ pid: number }>(await tx.execute(sql`select pg_backend_pid() as pid`));
      inserted(Number(backend?.pid));
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

/**
 * Returns once a backend of this database waits for a lock that `holder` holds: the import's insert
 * of the address, queued behind the other transaction's. Seen in PostgreSQL, not guessed from a
 * timer: on a slow machine the import may not have reached its insert when the timer fires, and the
 * race then never happens, though the test passes.
 */
async function untilWaitingOn(holder: number, importing: Promise<unknown>) {
  let settled = false;
  const settle = () => {
    settled = true;
  };
  importing.then(settle, settle);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = rowsOf<{ n: number }>(
      await h.db.execute(sql`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'
          and ${holder}::int = any(pg_blocking_pids(pid))`),
    );
    if ((row?.n ?? 0) > 0) return;
    if (settled) throw new Error('the import ended without waiting on the other transaction');
    if (Date.now() > deadline) throw new Error('the import did not wait on the other transaction in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

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
    const holder = await other.insertedYet;
    let settled = false;
    const importing = importInviting(t, email).finally(() => {
      settled = true;
    });
    // Its insert of the address waits for the other transaction's.
    await untilWaitingOn(holder, importing);
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
    const holder = await other.insertedYet;
    const importing = importInviting(t, email);
    await untilWaitingOn(holder, importing);
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
