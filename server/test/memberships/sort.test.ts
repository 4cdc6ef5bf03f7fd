import type { Membership, MembershipSort } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  createActor,
  createTenantFixture,
  type TenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError } from '../support/memberships.js';

// Member tables sort by creation (either way), email or name, page by page with a cursor that
// stays exact across ties and missing values, and can say how many members match.

let h: TestServer;
let t: TenantFixture;
const PAGE = 4;

beforeAll(async () => {
  h = await startTestServer();
  t = await createTenantFixture(h);
  const tag = unique('s').slice(2);
  // Ties (two "beth"), a missing name, mixed case, an invited member known by this tenant's label.
  const people = [
    { name: 'Beth', email: `Zed-${tag}@example.edu` },
    { name: 'beth', email: `amy-${tag}@Example.edu` },
    { name: 'Carl', email: `Bob-${tag}@example.edu` },
    { name: null, email: `carl-${tag}@example.edu` },
    { name: 'anna', email: `dan-${tag}@example.edu` },
    { name: 'Dora', email: `eve-${tag}@example.edu` },
    { name: 'beth', email: `fay-${tag}@example.edu` },
  ];
  for (const person of people) {
    const actor = await createActor(h, { name: person.name ?? undefined });
    await h.db.execute(
      // The factory names users after their subject; set what this test sorts by.
      (await import('drizzle-orm'))
        .sql`update users set display_name = ${person.name}, email = ${person.email},
        email_canonical = ${person.email.toLowerCase()} where id = ${actor.userId}`,
    );
    await addMember(h, t.tenantId, 'STUDENT', actor);
  }
  const invited = await t.owner.api.memberships.create({
    params: { tenantId: t.tenantId },
    body: { role: 'TEACHER', email: `gus-${tag}@example.edu`, displayName: 'Bert' },
  });
  expect(invited.status).toBe(201);
});
afterAll(() => h.close());

async function walk(sort: MembershipSort, extra: { role?: 'STUDENT'; q?: string } = {}) {
  const seen: Membership[] = [];
  const totals: (number | undefined)[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const res = await t.owner.api.memberships.list({
      params: { tenantId: t.tenantId },
      query: { sort, limit: PAGE, cursor, includeTotal: true, ...extra },
    });
    if (res.status !== 200) throw new Error(`list answered ${res.status}: ${JSON.stringify(res.body)}`);
    seen.push(...res.body.data);
    totals.push(res.body.meta.total);
    cursor = res.body.meta.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return { seen, totals };
}

const emailKey = (m: Membership) => m.user.email?.toLowerCase() ?? null;
const nameKey = (m: Membership) => m.user.displayName?.toLowerCase() ?? null;

/** Ascending by key, missing last, ties in creation order (ids are UUIDv7). */
function expectedOrder(items: Membership[], key: (m: Membership) => string | null) {
  return [...items].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return x < y ? -1 : 1;
    }
    return a.tenantMembershipId < b.tenantMembershipId ? -1 : 1;
  });
}

describe('sort', () => {
  it('createdAt (the default) and -createdAt page through everyone once, in creation order and back', async () => {
    const forward = (await walk('createdAt')).seen.map((m) => m.tenantMembershipId);
    const backward = (await walk('-createdAt')).seen.map((m) => m.tenantMembershipId);
    expect(forward).toHaveLength(9);
    expect(new Set(forward).size).toBe(9);
    expect([...forward].sort()).toEqual(forward);
    expect(backward).toEqual([...forward].reverse());
  });

  it.each([
    ['email', emailKey],
    ['displayName', nameKey],
  ] as const)(
    '%s: A to Z case-insensitively, ties in creation order, missing last, exact across pages',
    async (sort, key) => {
      const { seen } = await walk(sort);
      expect(seen).toHaveLength(9);
      expect(new Set(seen.map((m) => m.tenantMembershipId)).size).toBe(9);
      expect(seen.map((m) => m.tenantMembershipId)).toEqual(
        expectedOrder(seen, key).map((m) => m.tenantMembershipId),
      );
    },
  );

  it('shows a tenant’s label for an invited member among the names', async () => {
    const names = (await walk('displayName')).seen.map((m) => m.user.displayName);
    expect(names.slice(0, 5)).toEqual(['anna', 'Bert', 'Beth', 'beth', 'beth']);
    expect(names.at(-1)).toBeNull();
  });

  it('refuses a cursor made for another order', async () => {
    const first = await t.owner.api.memberships.list({
      params: { tenantId: t.tenantId },
      query: { sort: 'email', limit: 2 },
    });
    const cursor = first.status === 200 ? (first.body.meta.nextCursor ?? undefined) : undefined;
    expect(cursor).toBeDefined();
    for (const sort of ['displayName', 'createdAt', '-createdAt'] as const) {
      const res = await t.owner.api.memberships.list({
        params: { tenantId: t.tenantId },
        query: { sort, cursor },
      });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
  });

  it('refuses an order it does not offer', async () => {
    const res = await fetch(`${h.baseUrl}/tenants/${t.tenantId}/memberships?sort=-email`, {
      headers: { authorization: `Bearer ${t.owner.token}` },
    });
    expect(res.status).toBe(400);
  });
});

describe('includeTotal', () => {
  it('gives the number of matching members on every page, with the filters applied', async () => {
    expect((await walk('createdAt')).totals).toEqual([9, 9, 9]);
    expect(new Set((await walk('email', { role: 'STUDENT' })).totals)).toEqual(new Set([7]));
    const { seen, totals } = await walk('displayName', { q: 'beth' });
    expect(seen).toHaveLength(3);
    expect(totals).toEqual([3]);
  });

  it('is left out unless asked for', async () => {
    const res = await t.owner.api.memberships.list({ params: { tenantId: t.tenantId }, query: {} });
    expect(res.status === 200 && 'total' in res.body.meta).toBe(false);
    const no = await t.owner.api.memberships.list({
      params: { tenantId: t.tenantId },
      query: { includeTotal: false },
    });
    expect(no.status === 200 && 'total' in no.body.meta).toBe(false);
  });
});
