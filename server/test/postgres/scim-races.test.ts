import { createClient } from '@tms/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships } from '../../src/db/schema.js';
import {
  type Actor,
  addMember,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { newUser, patchOp, type ScimClient, scimClient, scimTokenOf } from '../support/scim.js';

// PostgreSQL only (this folder runs when TEST_DATABASE_URL is set): PGlite runs one transaction
// at a time, so these would pass without the tenant's lock that SCIM changes take like every
// membership write. On PostgreSQL the requests truly overlap.
const ROUNDS = 15;

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

const sdkOf = (token: string) => createClient({ baseUrl: h.baseUrl, token, retries: false });

describe('SCIM and a person changing the same membership at once', () => {
  it('never loses a change: the hand change lands before the takeover or is refused after it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const t = await createTenantFixture(h);
      const scim = scimClient(h, t.tenantId, await scimTokenOf(h, t.owner, t.tenantId));
      const person = await addMember(h, t.tenantId, 'TEACHER');
      const sdk = sdkOf(superAdmin.token);
      const [byScim, byHand] = await Promise.all([
        scim.patch(`/Users/${person.membershipId}`, patchOp({ op: 'add', path: 'externalId', value: 'x' })),
        sdk.memberships.update(t.tenantId, person.membershipId, { role: 'ADMIN' }).then(
          () => 'changed' as const,
          (error: { code?: string }) => error.code,
        ),
      ]);
      expect(byScim.status).toBe(200);
      expect(['changed', 'MEMBERSHIP_MANAGED_BY_DIRECTORY']).toContain(byHand);
      const [row] = await h.db
        .select()
        .from(tenantMemberships)
        .where(
          and(eq(tenantMemberships.tenantId, t.tenantId), eq(tenantMemberships.id, person.membershipId)),
        );
      // Whichever came first, the directory decides last: its role (no mapped group: STUDENT).
      expect(row).toMatchObject({ managedBy: 'scim', externalId: 'x', role: 'STUDENT' });
      expect(row?.version).toBe(byHand === 'changed' ? 3 : 2);
    }
  }, 120_000);

  it('keeps an ACTIVE OWNER when SCIM suspends one OWNER while a person removes the other', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const t = await createTenantFixture(h);
      const scim = scimClient(h, t.tenantId, await scimTokenOf(h, t.owner, t.tenantId));
      const other = await addMember(h, t.tenantId, 'OWNER');
      const sdk = sdkOf(superAdmin.token);
      const [suspend, remove] = await Promise.all([
        scim.patch(`/Users/${t.ownerMembershipId}`, patchOp({ op: 'replace', path: 'active', value: false })),
        sdk.memberships.remove(t.tenantId, other.membershipId).then(
          () => 'removed' as const,
          (error: { code?: string }) => error.code,
        ),
      ]);
      const outcomes = [suspend.status === 200 ? 'suspended' : suspend.status, remove];
      // Exactly one goes through; the other meets the last-owner rule under the lock.
      expect(outcomes.filter((o) => o === 'suspended' || o === 'removed')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 409 || o === 'LAST_OWNER')).toHaveLength(1);
      const owners = await sdk.memberships.list(t.tenantId, { role: 'OWNER', status: ['ACTIVE'] });
      expect(owners.items).toHaveLength(1);
    }
  }, 120_000);
});

describe('two SCIM tokens patching the same group at once', () => {
  async function setUp() {
    const t = await createTenantFixture(h);
    const tokens = [await scimTokenOf(h, t.owner, t.tenantId), await scimTokenOf(h, t.owner, t.tenantId)];
    const [one, two] = tokens.map((token) => scimClient(h, t.tenantId, token)) as [ScimClient, ScimClient];
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push((await one.post('/Users', newUser(`${unique('m')}@example.org`))).body.id);
    const group = (await one.post('/Groups', { displayName: unique('Race') })).body;
    await sdkOf(t.owner.token).scimGroups.setRole(t.tenantId, group.id, 'TEACHER');
    return { t, one, two, ids, group };
  }

  it('keeps both members added at once, and every member gets the role', async () => {
    for (let round = 0; round < 5; round++) {
      const { t, one, two, ids, group } = await setUp();
      const add = (client: ScimClient, some: string[]) =>
        client.patch(
          `/Groups/${group.id}`,
          patchOp({ op: 'add', path: 'members', value: some.map((value) => ({ value })) }),
        );
      const answers = await Promise.all([add(one, ids.slice(0, 6)), add(two, ids.slice(6))]);
      expect(answers.map((answer) => answer.status)).toEqual([204, 204]);
      const members =
        (await one.get(`/Groups/${group.id}`)).body.members?.map((member) => member.value) ?? [];
      expect(members.sort()).toEqual([...ids].sort());
      const listed = await sdkOf(t.owner.token).memberships.list(t.tenantId, { role: 'TEACHER', limit: 100 });
      expect(listed.items.map((m) => m.tenantMembershipId).sort()).toEqual([...ids].sort());
      const [summary] = await sdkOf(t.owner.token).scimGroups.list(t.tenantId);
      expect(summary).toMatchObject({ memberCount: 12, role: 'TEACHER' });
    }
  }, 120_000);

  it('ends with the changes applied in one order: a remove and an add of the same member never leave half of each', async () => {
    for (let round = 0; round < 5; round++) {
      const { t, one, two, ids, group } = await setUp();
      const [first] = ids as [string];
      await one.patch(
        `/Groups/${group.id}`,
        patchOp({ op: 'add', path: 'members', value: [{ value: first }] }),
      );
      await Promise.all([
        one.patch(`/Groups/${group.id}`, patchOp({ op: 'remove', path: `members[value eq "${first}"]` })),
        two.patch(
          `/Groups/${group.id}`,
          patchOp({ op: 'replace', path: 'members', value: ids.map((value) => ({ value })) }),
        ),
      ]);
      const members =
        (await one.get(`/Groups/${group.id}`)).body.members?.map((member) => member.value) ?? [];
      const expected = members.includes(first) ? ids : ids.slice(1);
      expect(members.sort()).toEqual([...expected].sort());
      const teachers = await sdkOf(t.owner.token).memberships.list(t.tenantId, {
        role: 'TEACHER',
        limit: 100,
      });
      expect(teachers.items.map((m) => m.tenantMembershipId).sort()).toEqual([...expected].sort());
    }
  }, 120_000);
});
