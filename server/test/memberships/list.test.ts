import type { Membership, Role } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUserIfAbsent } from '../../src/identity/identity.repository.js';
import { insertMembership } from '../../src/modules/memberships/memberships.repository.js';
import { type Actor, createTenantFixture, type TenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError, uniqueEmail } from '../support/memberships.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** A member with a chosen email and display name, for the search tests. */
async function member(tenantId: string, role: Role, email: string | null, displayName: string | null) {
  const user = await insertUserIfAbsent(h.db, { subject: unique('sub'), email, displayName });
  if (!user) throw new Error('could not create the user');
  return (await insertMembership(h.db, { tenantId, userId: user.id, role })).id;
}

/** A tenant with `extra` members after its OWNER; ids in creation order, the OWNER first. */
async function tenantOf(extra: number, roles: Role[] = ['STUDENT']) {
  const t = await createTenantFixture(h);
  const ids = [t.ownerMembershipId];
  for (let i = 0; i < extra; i++) {
    ids.push(await member(t.tenantId, roles[i % roles.length] ?? 'STUDENT', uniqueEmail(), null));
  }
  return { t, ids };
}

type Query = { limit?: number; cursor?: string; role?: Role; q?: string };

async function page(caller: Actor, tenantId: string, query: Query) {
  const res = await caller.api.memberships.list({ params: { tenantId }, query });
  if (res.status !== 200) throw new Error(`list answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Follows meta.nextCursor to the end; `between` runs after each page (to write during the walk). */
async function walk(
  t: TenantFixture,
  query: Query,
  between?: (pageNo: number, rows: Membership[]) => unknown,
) {
  const seen: Membership[] = [];
  let cursor: string | undefined;
  for (let pageNo = 0; pageNo < 1000; pageNo++) {
    const body = await page(t.owner, t.tenantId, { ...query, cursor });
    seen.push(...body.data);
    await between?.(pageNo, body.data);
    if (body.meta.nextCursor === null) return seen;
    expect(body.data).toHaveLength(query.limit ?? 20);
    cursor = body.meta.nextCursor;
  }
  throw new Error('the walk did not end');
}

const idsOf = (rows: Membership[]) => rows.map((m) => m.tenantMembershipId);

describe('pagination', () => {
  it('answers 20 by default, up to 100 on request', async () => {
    const { t, ids } = await tenantOf(24);
    const first = await page(t.owner, t.tenantId, {});
    expect(idsOf(first.data)).toEqual(ids.slice(0, 20));
    expect(first.meta.nextCursor).toEqual(expect.any(String));
    const all = await page(t.owner, t.tenantId, { limit: 100 });
    expect(idsOf(all.data)).toEqual(ids);
    expect(all.meta.nextCursor).toBeNull();
    const one = await page(t.owner, t.tenantId, { limit: 1 });
    expect(idsOf(one.data)).toEqual(ids.slice(0, 1));
  });

  it.each([0, 101, -1, 1.5, 'ten', ''])('refuses limit=%s with 400 VALIDATION_FAILED', async (limit) => {
    const t = await createTenantFixture(h);
    const res = await t.owner.api.memberships.list({
      params: { tenantId: t.tenantId },
      query: { limit: limit as number },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
  });

  it.each([23, 25])('walks %i rows page by page in creation order, no duplicate, no gap', async (count) => {
    const { t, ids } = await tenantOf(count - 1);
    const seen = await walk(t, { limit: 5 });
    expect(idsOf(seen)).toEqual(ids);
    const created = seen.map((m) => Date.parse(m.createdAt));
    expect(created).toEqual([...created].sort((a, b) => a - b));
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['a bare id', Buffer.from('0190a8b4-0000-7000-8000-000000000000').toString('base64url')],
    ['a prefixed non-id', Buffer.from('v1:not-a-uuid').toString('base64url')],
    [
      'standard base64 padding',
      `${Buffer.from('v1:0190a8b4-0000-7000-8000-000000000000').toString('base64')}=`,
    ],
  ])('refuses a cursor that is %s with 400 VALIDATION_FAILED', async (_label, cursor) => {
    const t = await createTenantFixture(h);
    const res = await t.owner.api.memberships.list({ params: { tenantId: t.tenantId }, query: { cursor } });
    expectError(res, 400, 'VALIDATION_FAILED');
  });

  it('inserts and deletes during the walk neither repeat nor skip the rows that were there', async () => {
    const { t, ids } = await tenantOf(14);
    const added: string[] = [];
    const deleted: string[] = [];
    const seen = await walk(t, { limit: 4 }, async (pageNo, rows) => {
      if (pageNo > 2) return;
      for (let i = 0; i < 2; i++) {
        const res = await t.owner.api.memberships.create({
          params: { tenantId: t.tenantId },
          body: { role: 'STUDENT', email: uniqueEmail('during') },
        });
        if (res.status === 201) added.push(res.body.data.tenantMembershipId);
      }
      // The row the cursor points at goes away: the next page must still start right after it.
      const last = rows.at(-1);
      if (pageNo === 1 && last) {
        await t.owner.api.memberships.remove({
          params: { tenantId: t.tenantId, tenantMembershipId: last.tenantMembershipId },
        });
        deleted.push(last.tenantMembershipId);
      }
    });
    expect(added).toHaveLength(6);
    const seenIds = idsOf(seen);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    // New rows sort after the old ones, so a walk that has not ended yet reaches them too.
    expect(seenIds).toEqual([...ids, ...added]);
    expect(deleted).toHaveLength(1);
  });
});

describe('filters', () => {
  it('role= returns only that role, in creation order, across pages', async () => {
    const { t, ids } = await tenantOf(11, ['TEACHER', 'STUDENT', 'ADMIN']);
    const teachers = ids.filter((_, i) => i > 0 && (i - 1) % 3 === 0);
    const seen = await walk(t, { role: 'TEACHER', limit: 2 });
    expect(seen.every((m) => m.role === 'TEACHER')).toBe(true);
    expect(idsOf(seen)).toEqual(teachers);
    expect(idsOf((await page(t.owner, t.tenantId, { role: 'OWNER' })).data)).toEqual([t.ownerMembershipId]);
  });

  it('q= matches email or display name, case-insensitively', async () => {
    const t = await createTenantFixture(h);
    const tag = unique('zq').replace('-', '');
    const byEmail = await member(t.tenantId, 'STUDENT', `Marie.${tag}@Example.test`, 'M. C.');
    const byName = await member(t.tenantId, 'TEACHER', uniqueEmail(), `Pierre ${tag.toUpperCase()}`);
    const noEmail = await member(t.tenantId, 'STUDENT', null, `Irène ${tag}`);
    await member(t.tenantId, 'STUDENT', uniqueEmail(), 'Someone else');
    const found = await page(t.owner, t.tenantId, { q: tag.toUpperCase() });
    expect(idsOf(found.data)).toEqual([byEmail, byName, noEmail]);
    expect(idsOf((await page(t.owner, t.tenantId, { q: `marie.${tag}@example` })).data)).toEqual([byEmail]);
    expect(idsOf((await page(t.owner, t.tenantId, { q: tag, role: 'TEACHER' })).data)).toEqual([byName]);
    expect((await page(t.owner, t.tenantId, { q: 'nobody-has-this' })).data).toEqual([]);
  });

  it('q= follows the person: a new name from their token, the name a tenant gave when inviting', async () => {
    const t = await createTenantFixture(h);
    const tag = unique('fol').replace('-', '');
    const subject = unique('sub');
    const user = await insertUserIfAbsent(h.db, { subject, email: null, displayName: 'Old Name' });
    if (!user) throw new Error('could not create the user');
    const id = (await insertMembership(h.db, { tenantId: t.tenantId, userId: user.id, role: 'STUDENT' })).id;
    expect(idsOf((await page(t.owner, t.tenantId, { q: tag })).data)).toEqual([]);
    // Their next token carries a new name: the record, and what search matches, follow it.
    expect((await h.client(await h.token(subject, { name: `New ${tag}` })).me.get()).status).toBe(200);
    expect(idsOf((await page(t.owner, t.tenantId, { q: `new ${tag}` })).data)).toEqual([id]);
    expect(idsOf((await page(t.owner, t.tenantId, { q: 'old name' })).data)).toEqual([]);
    const invited = await t.owner.api.memberships.create({
      params: { tenantId: t.tenantId },
      body: { role: 'STUDENT', email: uniqueEmail(tag), displayName: `Given ${tag}` },
    });
    const invitedId = (invited.body as { data: { tenantMembershipId: string } }).data.tenantMembershipId;
    expect(idsOf((await page(t.owner, t.tenantId, { q: `given ${tag}` })).data)).toEqual([invitedId]);
  });

  it('q= never matches across two fields, and refuses control characters with 400', async () => {
    const t = await createTenantFixture(h);
    const tag = unique('two').replace('-', '');
    await member(t.tenantId, 'STUDENT', `${tag}@x${tag}.test`, 'Zed');
    expect((await page(t.owner, t.tenantId, { q: `x${tag}.test` })).data).toHaveLength(1);
    expect((await page(t.owner, t.tenantId, { q: `x${tag}.testzed` })).data).toEqual([]);
    const res = await t.owner.api.memberships.list({
      params: { tenantId: t.tenantId },
      query: { q: 'test\nZed' },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
  });

  it('q= takes %, _ and \\ as literal characters', async () => {
    const t = await createTenantFixture(h);
    const tag = unique('lit').replace('-', '');
    const percent = await member(t.tenantId, 'STUDENT', uniqueEmail(), `${tag} 100% sure`);
    await member(t.tenantId, 'STUDENT', uniqueEmail(), `${tag} 1000 sure`);
    const underscore = await member(t.tenantId, 'STUDENT', uniqueEmail(), `${tag} a_b`);
    await member(t.tenantId, 'STUDENT', uniqueEmail(), `${tag} axb`);
    const backslash = await member(t.tenantId, 'STUDENT', uniqueEmail(), `${tag} c\\d`);
    await member(t.tenantId, 'STUDENT', uniqueEmail(), `${tag} cd`);
    const search = async (q: string) => idsOf((await page(t.owner, t.tenantId, { q })).data);
    expect(await search('100%')).toEqual([percent]);
    expect(await search('a_b')).toEqual([underscore]);
    expect(await search('c\\d')).toEqual([backslash]);
    expect(await search('%')).toEqual([percent]);
  });

  it('never shows memberships of other tenants, with or without filters', async () => {
    const tag = unique('both').replace('-', '');
    const a = await createTenantFixture(h);
    const b = await createTenantFixture(h);
    const mine = [a.ownerMembershipId];
    for (const t of [a, b]) {
      for (const role of ['TEACHER', 'OWNER'] as const) {
        const id = await member(t.tenantId, role, uniqueEmail(tag), `${tag} ${role}`);
        if (t === a) mine.push(id);
      }
    }
    const queries: Query[] = [{}, { limit: 100 }, { role: 'OWNER' }, { role: 'TEACHER' }, { q: tag }];
    for (const query of queries) {
      const rows = (await page(a.owner, a.tenantId, query)).data;
      expect(rows.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(rows.every((m) => m.tenantId === a.tenantId && mine.includes(m.tenantMembershipId))).toBe(true);
    }
  });
});
