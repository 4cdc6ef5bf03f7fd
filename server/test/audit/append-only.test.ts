import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/** The database itself keeps the trail append-only: only a maintenance transaction may touch it. */
let h: TestServer;
let tenantId: string;
beforeAll(async () => {
  h = await startTestServer();
  tenantId = (await createTenantFixture(h)).tenantId;
});
afterAll(() => h?.close());

const count = async () => {
  const rows = await h.db.execute<{ n: number }>(
    sql`select count(*)::int as n from audit_events where tenant_id = ${tenantId}`,
  );
  return Number(
    (rows as unknown as { rows?: { n: number }[] }).rows?.[0]?.n ??
      (rows as unknown as { n: number }[])[0]?.n,
  );
};

/** The database's own message: drizzle wraps it in a "Failed query" error, as its cause. */
async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    const { cause } = error as { cause?: { message?: string } };
    return cause?.message ?? (error as Error).message;
  }
  return 'not refused';
}

describe('audit_events is append-only', () => {
  it.each([
    [
      'UPDATE',
      sql`update audit_events set action = 'tenant.updated' where tenant_id = ${'00000000-0000-0000-0000-000000000001'}::uuid or true`,
    ],
    ['UPDATE of before', sql`update audit_events set before = '{}'::jsonb`],
    ['DELETE', sql`delete from audit_events`],
    ['TRUNCATE', sql`truncate audit_events`],
  ])('refuses %s outside maintenance', async (_label, statement) => {
    const before = await count();
    expect(await refusal(h.db.execute(statement))).toMatch(/append-only/);
    expect(await count()).toBe(before);
  });

  it('lets a maintenance transaction rewrite personal data and delete, never what happened', async () => {
    await h.db.transaction(async (tx) => {
      await tx.execute(sql`set local app.audit_maintenance = 'on'`);
      await tx.execute(sql`update audit_events set after = '{"x":1}'::jsonb where tenant_id = ${tenantId}`);
    });
    const renumbered = h.db.transaction(async (tx) => {
      await tx.execute(sql`set local app.audit_maintenance = 'on'`);
      await tx.execute(sql`update audit_events set sequence = sequence + 100 where tenant_id = ${tenantId}`);
    });
    expect(await refusal(renumbered)).toMatch(/only before, after and actor_subject/);
    // SET LOCAL ends with its transaction: the next statement is refused again.
    expect(await refusal(h.db.execute(sql`delete from audit_events where tenant_id = ${tenantId}`))).toMatch(
      /append-only/,
    );
    await h.db.transaction(async (tx) => {
      await tx.execute(sql`set local app.audit_maintenance = 'on'`);
      await tx.execute(sql`delete from audit_events where tenant_id = ${tenantId}`);
    });
    expect(await count()).toBe(0);
  });
});

describe('the retention purge', () => {
  it('removes the events older than AUDIT_RETENTION_DAYS, and numbering goes on where it was', async () => {
    const { purgeExpiredAuditEvents } = await import('../../src/modules/audit/audit-retention.js');
    const t = await createTenantFixture(h);
    const ids = async () => {
      const rows = await h.db.execute<{ sequence: number }>(
        sql`select sequence::int as sequence from audit_events where tenant_id = ${t.tenantId} order by sequence`,
      );
      const list = Array.isArray(rows) ? rows : (rows as unknown as { rows: { sequence: number }[] }).rows;
      return list.map((row) => Number(row.sequence));
    };
    expect(await ids()).toEqual([1, 2]);
    // Nothing is old enough today; 400 days from now, all of it is.
    expect(await purgeExpiredAuditEvents(h.db, 365)).toBe(0);
    const purged = await purgeExpiredAuditEvents(h.db, 365, {
      now: new Date(Date.now() + 400 * 86_400_000),
      batchSize: 1,
    });
    expect(purged).toBeGreaterThanOrEqual(2);
    expect(await ids()).toEqual([]);
    const res = await t.owner.api.memberships.create({
      params: { tenantId: t.tenantId },
      body: { email: 'after-purge@example.test', role: 'STUDENT' },
    });
    expect(res.status).toBe(201);
    expect(await ids()).toEqual([3]);
  });
});
