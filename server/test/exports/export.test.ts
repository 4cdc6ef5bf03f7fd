import { createClient, type Membership } from '@tms/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships } from '../../src/db/schema.js';
import { insertUserIfAbsent } from '../../src/identity/identity.repository.js';
import { insertMembership } from '../../src/modules/memberships/memberships.repository.js';
import { type Actor, addMember, createActor, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { uniqueEmail } from '../support/memberships.js';
import { csvRecords, download, EXPORT_COLUMNS, ndjsonRecords, seedStudents } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const DAY = 24 * 60 * 60 * 1000;
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY);

/** A member whose user has this address and name (either may be missing). */
async function member(
  tenantId: string,
  role: Membership['role'],
  user: { email: string | null; displayName: string | null; invitedDisplayName?: string },
) {
  const row = await insertUserIfAbsent(h.db, { subject: unique('sub'), ...user });
  if (!row) throw new Error('could not create the user');
  const { invitedDisplayName = null } = user;
  return (await insertMembership(h.db, { tenantId, userId: row.id, role, invitedDisplayName })).id;
}

async function setState(id: string, state: { startsAt?: Date; endsAt?: Date; suspendedAt?: Date }) {
  await h.db.update(tenantMemberships).set(state).where(eq(tenantMemberships.id, id));
}

/** What the list route shows of the tenant, in creation order: what the export must agree with. */
async function listed(actor: Actor, tenantId: string): Promise<Membership[]> {
  const sdk = createClient({ baseUrl: h.baseUrl, token: actor.token, retries: false });
  const all: Membership[] = [];
  for await (const m of sdk.memberships.listAll(tenantId, { limit: 100 })) all.push(m);
  return all;
}

/** A tenant with one member of every kind the export has to write. */
async function tenantOfEveryKind() {
  const t = await createTenantFixture(h);
  const named = await member(t.tenantId, 'TEACHER', {
    email: uniqueEmail('zoe'),
    displayName: '  Zoë   van der Berg ',
  });
  await setState(named, { startsAt: daysFromNow(-10), endsAt: daysFromNow(300) });
  const invited = await member(t.tenantId, 'STUDENT', {
    email: uniqueEmail('invited'),
    displayName: null,
    invitedDisplayName: 'Ines Invited',
  });
  const nameless = await member(t.tenantId, 'STUDENT', { email: null, displayName: null });
  const suspended = await member(t.tenantId, 'ADMIN', { email: uniqueEmail('sus'), displayName: 'Sam' });
  await setState(suspended, { suspendedAt: new Date() });
  const scheduled = await member(t.tenantId, 'STUDENT', { email: uniqueEmail('sch'), displayName: 'Sc Hed' });
  await setState(scheduled, { startsAt: daysFromNow(5) });
  const ended = await member(t.tenantId, 'TEACHER', { email: uniqueEmail('end'), displayName: 'En D' });
  await setState(ended, { endsAt: daysFromNow(-1) });
  return { ...t, ids: { named, invited, nameless, suspended, scheduled, ended } };
}

describe('the CSV export', () => {
  it('is a download: the header row, then every member in creation order, as the list shows them', async () => {
    const t = await tenantOfEveryKind();
    const res = await download(h, t.owner.token, t.tenantId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${t.slug}-memberships.csv"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // A byte order mark, for spreadsheets; then the header, unenveloped.
    expect(res.text.startsWith(`\uFEFF${EXPORT_COLUMNS.join(',')}\n`)).toBe(true);
    const records = csvRecords(res.text);
    const shown = await listed(t.owner, t.tenantId);
    expect(records.map((r) => r.tenantMembershipId)).toEqual(shown.map((m) => m.tenantMembershipId));
    expect(records.map((r) => Object.keys(r))).toEqual(records.map(() => EXPORT_COLUMNS));
    for (const [i, m] of shown.entries()) {
      expect(records[i]).toMatchObject({
        email: m.user.email ?? '',
        role: m.role,
        startsAt: m.startsAt ?? '',
        endsAt: m.endsAt ?? '',
        userId: m.userId,
        status: m.status,
      });
    }
    const byId = new Map(records.map((r) => [r.tenantMembershipId, r]));
    const names = (id: string) => {
      const r = byId.get(id);
      return [r?.givenName, r?.familyName];
    };
    expect(names(t.ids.named)).toEqual(['Zoë', 'van der Berg']);
    expect(names(t.ids.invited)).toEqual(['Ines', 'Invited']);
    expect(names(t.ids.nameless)).toEqual(['', '']);
    expect(names(t.ids.suspended)).toEqual(['Sam', '']);
    expect(byId.get(t.ids.nameless)?.email).toBe('');
    expect(
      [t.ids.suspended, t.ids.scheduled, t.ids.ended, t.ids.named].map((id) => byId.get(id)?.status),
    ).toEqual(['SUSPENDED', 'SCHEDULED', 'ENDED', 'ACTIVE']);
  });

  it('neutralises cells a spreadsheet would run, and quotes what needs quoting', async () => {
    const t = await createTenantFixture(h);
    const link = await member(t.tenantId, 'STUDENT', {
      email: uniqueEmail('link'),
      displayName: '=HYPERLINK("http://evil","x")',
    });
    const sum = await member(t.tenantId, 'STUDENT', {
      email: uniqueEmail('sum'),
      displayName: 'Ann @SUM(1)',
    });
    const plus = await member(t.tenantId, 'STUDENT', { email: `+${uniqueEmail('plus')}`, displayName: null });
    const comma = await member(t.tenantId, 'STUDENT', {
      email: uniqueEmail('comma'),
      displayName: 'Jo "JJ" Smith, Jr.',
    });
    const res = await download(h, t.owner.token, t.tenantId);
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);
    const byId = new Map(csvRecords(res.text).map((r) => [r.tenantMembershipId, r]));
    expect(byId.get(link)?.givenName).toBe(`'=HYPERLINK("http://evil","x")`);
    expect(byId.get(sum)).toMatchObject({ givenName: 'Ann', familyName: `'@SUM(1)` });
    expect(byId.get(plus)?.email?.startsWith(`'+plus-`)).toBe(true);
    expect(byId.get(comma)).toMatchObject({ givenName: 'Jo', familyName: '"JJ" Smith, Jr.' });
  });
});

describe('the NDJSON export', () => {
  it('is one object per line, with the CSV columns as keys, raw values and nulls', async () => {
    const t = await tenantOfEveryKind();
    const link = await member(t.tenantId, 'STUDENT', {
      email: `-${uniqueEmail('dash')}`,
      displayName: '=HYPERLINK("http://evil","x") @SUM(1)',
    });
    const res = await download(h, t.owner.token, t.tenantId, { format: 'ndjson' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="${t.slug}-memberships.ndjson"`,
    );
    expect(res.text.endsWith('\n')).toBe(true);
    const records = ndjsonRecords(res.text);
    const csv = csvRecords((await download(h, t.owner.token, t.tenantId)).text);
    expect(records.map((r) => Object.keys(r))).toEqual(records.map(() => EXPORT_COLUMNS));
    expect(records.map((r) => r.tenantMembershipId)).toEqual(csv.map((r) => r.tenantMembershipId));
    const byId = new Map(records.map((r) => [r.tenantMembershipId, r]));
    expect(byId.get(link)).toMatchObject({
      email: expect.stringMatching(/^-dash-/),
      givenName: '=HYPERLINK("http://evil","x")',
      familyName: '@SUM(1)',
    });
    expect(byId.get(t.ids.nameless)).toMatchObject({ email: null, givenName: null, familyName: null });
    expect(byId.get(t.ids.suspended)).toMatchObject({ familyName: null, startsAt: null, endsAt: null });
    expect(byId.get(t.ids.named)?.startsAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe('filters', () => {
  it('role, one status or several, and both together; an empty result is the header alone', async () => {
    const t = await tenantOfEveryKind();
    const ids = async (query: Parameters<typeof download>[3]) =>
      csvRecords((await download(h, t.owner.token, t.tenantId, query)).text).map((r) => r.tenantMembershipId);
    const { named, invited, nameless, suspended, scheduled, ended } = t.ids;
    expect(await ids({ role: 'TEACHER' })).toEqual([named, ended]);
    expect(await ids({ status: 'SUSPENDED' })).toEqual([suspended]);
    expect(await ids({ status: ['SCHEDULED', 'ENDED'] })).toEqual([scheduled, ended]);
    expect(await ids({ role: 'STUDENT', status: 'ACTIVE' })).toEqual([invited, nameless]);
    const empty = await download(h, t.owner.token, t.tenantId, { role: 'OWNER', status: 'ENDED' });
    expect(empty.text).toBe(`\uFEFF${EXPORT_COLUMNS.join(',')}\n`);
    const emptyNdjson = await download(h, t.owner.token, t.tenantId, {
      format: 'ndjson',
      status: 'ENDED',
      role: 'OWNER',
    });
    expect([emptyNdjson.status, emptyNdjson.text]).toEqual([200, '']);
  });

  it("another tenant's members never appear, even a person who belongs to both", async () => {
    const a = await createTenantFixture(h);
    const b = await createTenantFixture(h);
    const both = await createActor(h);
    await addMember(h, a.tenantId, 'TEACHER', both);
    await addMember(h, b.tenantId, 'STUDENT', both);
    await addMember(h, b.tenantId, 'STUDENT');
    const exported = csvRecords((await download(h, a.owner.token, a.tenantId)).text);
    const shown = await listed(a.owner, a.tenantId);
    expect(exported.map((r) => r.tenantMembershipId)).toEqual(shown.map((m) => m.tenantMembershipId));
    expect(exported.map((r) => r.role)).toEqual(['OWNER', 'TEACHER']);
  });
});

describe('a tenant of a few thousand members', () => {
  it('streams completely, in order, in both formats (several batches)', async () => {
    const t = await createTenantFixture(h);
    await seedStudents(h.db, t.tenantId, 3500);
    for (const format of ['csv', 'ndjson'] as const) {
      const res = await download(h, t.owner.token, t.tenantId, { format });
      const records = format === 'csv' ? csvRecords(res.text) : ndjsonRecords(res.text);
      expect(records).toHaveLength(3501);
      const ids = records.map((r) => r.tenantMembershipId as string);
      expect(new Set(ids).size).toBe(3501);
      expect(ids).toEqual([...ids].sort());
    }
  });
});
