import type { Role } from '@tms/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships } from '../../src/db/schema.js';
import { insertUserIfAbsent } from '../../src/identity/identity.repository.js';
import { insertMembership } from '../../src/modules/memberships/memberships.repository.js';
import { addMember, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import type { Json } from '../support/json.js';
import { tenantState, uniqueEmail } from '../support/memberships.js';
import { download, ndjsonRecords } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const DAY = 24 * 60 * 60 * 1000;
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY);

async function member(
  tenantId: string,
  role: Role,
  user: { email: string | null; displayName: string | null; subject?: string | null },
  state: { startsAt?: Date; endsAt?: Date; suspendedAt?: Date } = {},
) {
  const row = await insertUserIfAbsent(h.db, { subject: unique('sub'), ...user });
  if (!row) throw new Error('could not create the user');
  const { id } = await insertMembership(h.db, { tenantId, userId: row.id, role });
  if (Object.keys(state).length > 0)
    await h.db.update(tenantMemberships).set(state).where(eq(tenantMemberships.id, id));
}

/** Every kind of member an export writes: roles, terms, states, odd names and addresses. */
async function schoolOfEveryKind() {
  const t = await createTenantFixture(h);
  await addMember(h, t.tenantId, 'ADMIN');
  await member(t.tenantId, 'OWNER', { email: uniqueEmail('owner2'), displayName: 'Second Owner' });
  await member(
    t.tenantId,
    'TEACHER',
    { email: uniqueEmail('zoe'), displayName: 'Zoë van der Berg' },
    { startsAt: daysFromNow(-30), endsAt: daysFromNow(200) },
  );
  await member(
    t.tenantId,
    'STUDENT',
    { email: uniqueEmail('sus'), displayName: 'Sam' },
    { suspendedAt: new Date() },
  );
  await member(
    t.tenantId,
    'STUDENT',
    { email: uniqueEmail('sch'), displayName: null },
    { startsAt: daysFromNow(7) },
  );
  await member(
    t.tenantId,
    'TEACHER',
    { email: uniqueEmail('end'), displayName: 'En D' },
    { endsAt: daysFromNow(-2) },
  );
  await member(t.tenantId, 'STUDENT', { email: null, displayName: 'No Address' });
  await member(t.tenantId, 'STUDENT', {
    email: uniqueEmail('link'),
    displayName: '=HYPERLINK("http://evil","x")',
  });
  await member(t.tenantId, 'STUDENT', { email: uniqueEmail('sum'), displayName: 'Ann @SUM(1)' });
  await member(t.tenantId, 'STUDENT', { email: `+${uniqueEmail('plus')}`, displayName: '-minus +plus' });
  await member(t.tenantId, 'STUDENT', { email: `-${uniqueEmail('dash')}`, displayName: 'Dash' });
  await member(t.tenantId, 'STUDENT', { email: uniqueEmail('invited'), displayName: null, subject: null });
  return t;
}

async function importRoster(token: string, tenantId: string, contentType: string, body: string) {
  const res = await fetch(`${h.baseUrl}/tenants/${tenantId}/roster-imports?mode=sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('an export re-imported with mode=sync', () => {
  it.each(['csv', 'ndjson'] as const)('%s: changes nothing, every row unchanged', async (format) => {
    const t = await schoolOfEveryKind();
    const before = await tenantState(h.db, t.tenantId);
    const exported = await download(h, t.owner.token, t.tenantId, { format });
    expect(exported.status).toBe(200);
    const res =
      format === 'csv'
        ? await importRoster(t.owner.token, t.tenantId, 'text/csv', exported.text)
        : await importRoster(
            t.owner.token,
            t.tenantId,
            'application/json',
            JSON.stringify({ rows: ndjsonRecords(exported.text) }),
          );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.errors).toEqual([]);
    expect(res.body.data.summary).toEqual({
      create: 0,
      updateRole: 0,
      updateTerm: 0,
      remove: 0,
      unchanged: before.length,
      invalid: 0,
      guardianInvitations: 0,
    });
    expect(res.body.data.failure).toBeNull();
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });
});
