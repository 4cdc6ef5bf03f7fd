import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { startTwoServers, type TwoServers } from './two-servers.js';

// Two server processes write to the same tenants at once: each tenant's sequence must still read
// 1, 2, 3… with no gap and no duplicate, and match its committed changes one for one.
let s: TwoServers;
beforeAll(async () => {
  s = await startTwoServers();
}, 60_000);
afterAll(() => s?.stop());

/** The first process's client for even `i`, the second's for odd. */
const apiOf = (i: number) => s.apis[i % 2 === 0 ? 0 : 1];

async function newTenant(): Promise<string> {
  const res = await s.apis[0].tenants.create({
    body: { name: 'Race', slug: unique('race'), owner: { email: `${unique('o')}@race.test` } },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return (res.body as { data: { tenantId: string } }).data.tenantId;
}

/** `count` memberships added by email to `tenantId`, half through each process, all at once. */
function addMany(tenantId: string, count: number) {
  return Array.from({ length: count }, (_, i) =>
    apiOf(i).memberships.create({
      params: { tenantId },
      body: { email: `${unique('m')}@race.test`, role: 'STUDENT' },
    }),
  );
}

async function sequencesOf(tenantId: string): Promise<number[]> {
  const rows = await s.sql<{ sequence: string }[]>`
    select sequence from audit_events where tenant_id = ${tenantId} order by sequence`;
  return rows.map((row) => Number(row.sequence));
}

describe('the audit sequence under two processes writing at once', () => {
  it('has no gaps and no duplicates in one tenant, also with refused changes among them', async () => {
    const tenantId = await newTenant();
    const answers = await Promise.all([
      ...addMany(tenantId, 40),
      // Refused (409 LAST_OWNER): they ran and rolled back, numbers and all.
      ...Array.from({ length: 10 }, (_, i) =>
        apiOf(i)
          .memberships.list({ params: { tenantId }, query: { role: 'OWNER' } })
          .then(async (res) => {
            const [ownerMembership] = (res.body as { data: { tenantMembershipId: string }[] }).data;
            return apiOf(i + 1).memberships.remove({
              params: { tenantId, tenantMembershipId: ownerMembership?.tenantMembershipId ?? '' },
            });
          }),
      ),
    ]);
    // Anything but the answers expected, shown whole when it fails.
    const unexpected = answers.filter((res) => res.status !== 201 && res.status !== 409);
    expect(unexpected.map((res) => res.body)).toEqual([]);
    const created = answers.filter((res) => res.status === 201).length;
    expect(created).toBe(40);
    expect(answers.filter((res) => res.status === 409)).toHaveLength(10);
    // tenant.created and the OWNER's membership.created, then one event per membership added.
    const sequences = await sequencesOf(tenantId);
    expect(sequences).toEqual(Array.from({ length: 2 + created }, (_, i) => i + 1));
  }, 60_000);

  it('keeps one sequence per tenant when both processes write to several tenants', async () => {
    const tenantIds = await Promise.all([newTenant(), newTenant(), newTenant()]);
    const answers = await Promise.all(tenantIds.flatMap((tenantId) => addMany(tenantId, 20)));
    expect(answers.every((res) => res.status === 201)).toBe(true);
    for (const tenantId of tenantIds)
      expect(await sequencesOf(tenantId)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    const [granted] = await s.sql<{ count: string }[]>`
      select count(*) from audit_events where tenant_id is null and action = 'super_admin.granted'`;
    // Both processes granted SUPER_ADMIN_SUBJECTS at start, at once: one grant, one event.
    expect(Number(granted?.count)).toBe(1);
  }, 60_000);
});
