import type { MembershipStatus } from '@tms/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusAt } from '../../src/rules/membership-rules.js';
import { isActive, statusOf } from '../../src/rules/membership-status.sql.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

// A membership's status has two homes by necessity: SQL, where lists filter and count by it
// (membership-status.sql.ts), and TypeScript, where a change is decided before it is made
// (rules/membership-rules.ts). They must answer alike, at the same instant, for every case.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

const DAY = "interval '1 day'";
type Case = [string, string, string, string];

describe('the status rule, in SQL and in TypeScript', () => {
  it.each<Case>([
    ['open-ended', 'null', 'null', 'null'],
    ['within its term', 'null', `now() - ${DAY}`, `now() + ${DAY}`],
    ['not begun', 'null', `now() + ${DAY}`, 'null'],
    ['ended', 'null', 'null', `now() - ${DAY}`],
    ['ending now', 'null', 'null', 'now()'],
    ['beginning now', 'null', 'now()', 'null'],
    ['suspended, within its term', `now() - ${DAY}`, `now() - ${DAY}`, 'null'],
    ['suspended, not begun', `now() - ${DAY}`, `now() + ${DAY}`, 'null'],
    ['ended and not begun', 'null', `now() + ${DAY}`, `now() - ${DAY}`],
  ])('%s', async (_label, suspendedAt, startsAt, endsAt) => {
    const m = {
      suspendedAt: sql.raw('m.suspended_at'),
      startsAt: sql.raw('m.starts_at'),
      endsAt: sql.raw('m.ends_at'),
    };
    const result: unknown = await db.db.execute(sql`
      select now() as now, m.suspended_at, m.starts_at, m.ends_at,
        ${statusOf(m)} as status, ${isActive(m)} as active
      from (select (${sql.raw(suspendedAt)})::timestamptz as suspended_at,
        (${sql.raw(startsAt)})::timestamptz as starts_at, (${sql.raw(endsAt)})::timestamptz as ends_at) as m`);
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<
      string,
      string | Date | boolean | null
    >[];
    const row = rows[0] ?? {};
    const date = (value: unknown) =>
      value === null || value === undefined ? null : new Date(value as string);
    const inTypeScript = statusAt(
      { suspendedAt: date(row.suspended_at), startsAt: date(row.starts_at), endsAt: date(row.ends_at) },
      date(row.now) as Date,
    );
    expect(inTypeScript).toBe(row.status as MembershipStatus);
    expect(row.active).toBe(inTypeScript === 'ACTIVE');
  });
});
