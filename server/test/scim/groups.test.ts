import { createClient } from '@tms/client';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { newUser, patchOp, type ScimClient, scimClient, scimTokenOf } from '../support/scim.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const sdkOf = (token: string) => createClient({ baseUrl: h.baseUrl, token, retries: false });

async function directory() {
  const tenant = await createTenantFixture(h);
  const token = await scimTokenOf(h, tenant.owner, tenant.tenantId);
  return { tenant, scim: scimClient(h, tenant.tenantId, token), sdk: sdkOf(tenant.owner.token) };
}

async function userIn(scim: ScimClient): Promise<string> {
  const answer = await scim.post('/Users', newUser(`${unique('member')}@example.org`));
  expect(answer.status).toBe(201);
  return answer.body.id;
}

async function groupIn(scim: ScimClient, members: string[] = [], name = unique('Group')) {
  const answer = await scim.post('/Groups', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: name,
    externalId: `ext-${name}`,
    members: members.map((value) => ({ value })),
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

const memberIds = async (scim: ScimClient, groupId: string) =>
  ((await scim.get(`/Groups/${groupId}`)).body.members ?? []).map((member) => member.value).sort();

describe('SCIM Groups', () => {
  it('creates, reads, lists and filters groups, unique by name', async () => {
    const { scim } = await directory();
    const ada = await userIn(scim);
    const group = await groupIn(scim, [ada], 'Teachers');
    expect(group).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Teachers',
      externalId: 'ext-Teachers',
      members: [{ value: ada, $ref: `${scim.base}/Users/${ada}` }],
      meta: { resourceType: 'Group', version: '"1"' },
    });
    expect((await scim.get(`/Groups/${group.id}`)).body).toEqual(group);
    const again = await scim.post('/Groups', { displayName: 'Teachers' });
    expect(again).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    const found = await scim.get(`/Groups?filter=${encodeURIComponent('displayName eq "teachers"')}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: group.id }] });
    const lean = await scim.get(`/Groups?excludedAttributes=members`);
    expect(lean.body.Resources[0]?.members).toEqual([]);
    expect((await scim.get('/Groups/nope')).status).toBe(404);
    const user = await scim.get(`/Users/${ada}`);
    expect(user.body.groups).toEqual([{ value: group.id, display: 'Teachers' }]);
  });

  it('takes every shape of member change directories send, and removes exactly those named', async () => {
    const { scim } = await directory();
    const [a, b, c, d] = [await userIn(scim), await userIn(scim), await userIn(scim), await userIn(scim)];
    const group = await groupIn(scim);
    const patch = (...operations: unknown[]) => scim.patch(`/Groups/${group.id}`, patchOp(...operations));
    expect(
      (await patch({ op: 'Add', path: 'members', value: [{ value: a }, { value: b }, { value: c }] })).status,
    ).toBe(204);
    expect(await memberIds(scim, group.id)).toEqual([a, b, c].sort());
    await patch({ op: 'Remove', path: 'members', value: [{ value: b }] });
    expect(await memberIds(scim, group.id)).toEqual([a, c].sort());
    await patch({ op: 'remove', path: `members[value eq "${a}"]` });
    expect(await memberIds(scim, group.id)).toEqual([c]);
    await patch({ op: 'add', value: { members: [{ value: d }] } });
    expect(await memberIds(scim, group.id)).toEqual([c, d].sort());
    await patch({ op: 'replace', path: 'members', value: [{ value: a }] });
    expect(await memberIds(scim, group.id)).toEqual([a]);
    await patch({ op: 'replace', path: 'members', value: [] });
    expect(await memberIds(scim, group.id)).toEqual([]);
    await patch({ op: 'replace', value: { displayName: 'Renamed', externalId: 'x-1' } });
    expect((await scim.get(`/Groups/${group.id}`)).body).toMatchObject({
      displayName: 'Renamed',
      externalId: 'x-1',
    });
    const unknown = await patch({ op: 'add', path: 'members', value: [{ value: 'not-a-user' }] });
    expect(unknown).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    const noneToRemove = await patch({ op: 'remove', path: 'members', value: [{ value: b }] });
    expect(noneToRemove.status).toBe(204);
  });

  it('gives members the highest role their mapped groups give, following every change', async () => {
    const { tenant, scim, sdk } = await directory();
    const person = await userIn(scim);
    const teachers = await groupIn(scim, [person]);
    const admins = await groupIn(scim);
    const roleOf = async () => (await sdk.memberships.get(tenant.tenantId, person)).role;
    expect(await roleOf()).toBe('STUDENT');
    expect(await sdk.scimGroups.setRole(tenant.tenantId, teachers.id, 'TEACHER')).toMatchObject({
      groupId: teachers.id,
      role: 'TEACHER',
      memberCount: 1,
    });
    expect(await roleOf()).toBe('TEACHER');
    await scim.patch(
      `/Groups/${admins.id}`,
      patchOp({ op: 'add', path: 'members', value: [{ value: person }] }),
    );
    expect(await roleOf()).toBe('TEACHER');
    await sdk.scimGroups.setRole(tenant.tenantId, admins.id, 'ADMIN');
    expect(await roleOf()).toBe('ADMIN');
    await scim.patch(
      `/Groups/${admins.id}`,
      patchOp({ op: 'remove', path: 'members', value: [{ value: person }] }),
    );
    expect(await roleOf()).toBe('TEACHER');
    await sdk.scimGroups.unmapRole(tenant.tenantId, teachers.id);
    expect(await roleOf()).toBe('STUDENT');
    await sdk.scimGroups.setRole(tenant.tenantId, teachers.id, 'TEACHER');
    expect((await scim.delete(`/Groups/${teachers.id}`)).status).toBe(204);
    expect(await roleOf()).toBe('STUDENT');
    const listed = await sdk.scimGroups.list(tenant.tenantId);
    expect(listed).toEqual([
      {
        groupId: admins.id,
        displayName: admins.displayName,
        externalId: admins.externalId,
        memberCount: 0,
        role: 'ADMIN',
      },
    ]);
    await expect(
      sdk.scimGroups.setRole(tenant.tenantId, admins.id, 'OWNER' as 'ADMIN'),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const events = (await sdk.auditEvents.listForTenant(tenant.tenantId, { limit: 50 })).items.map(
      (e) => e.action,
    );
    expect(events).toEqual(
      expect.arrayContaining(['scim_group.role_mapped', 'membership.role_changed', 'scim_group.deleted']),
    );
  });

  it('brings a removed user back with its groups, and so its role, on a POST with its externalId', async () => {
    const { tenant, scim, sdk } = await directory();
    const email = `${unique('back')}@example.org`;
    const first = await scim.post('/Users', newUser(email, { externalId: 'e-back' }));
    const group = await groupIn(scim, [first.body.id]);
    await sdk.scimGroups.setRole(tenant.tenantId, group.id, 'TEACHER');
    expect((await scim.delete(`/Users/${first.body.id}`)).status).toBe(204);
    expect(await memberIds(scim, group.id)).toEqual([]);
    const countOf = async () =>
      (await sdk.scimGroups.list(tenant.tenantId)).find((g) => g.groupId === group.id)?.memberCount;
    expect(await countOf()).toBe(0);
    const back = await scim.post('/Users', newUser(email, { externalId: 'e-back' }));
    expect(back.status).toBe(201);
    expect((await sdk.memberships.get(tenant.tenantId, back.body.id)).role).toBe('TEACHER');
    expect(await memberIds(scim, group.id)).toEqual([back.body.id]);
    expect(await countOf()).toBe(1);
  });

  it("never makes an OWNER anything else, and ignores another tenant's users", async () => {
    const { tenant, scim, sdk } = await directory();
    const other = await directory();
    const foreign = await userIn(other.scim);
    const group = await groupIn(scim, [tenant.ownerMembershipId]);
    await sdk.scimGroups.setRole(tenant.tenantId, group.id, 'STUDENT');
    expect((await sdk.memberships.get(tenant.tenantId, tenant.ownerMembershipId)).role).toBe('OWNER');
    const refused = await scim.patch(
      `/Groups/${group.id}`,
      patchOp({ op: 'add', path: 'members', value: [{ value: foreign }] }),
    );
    expect(refused).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });

  it('patches a group of 5,000 members in one request (a body over 100 KiB)', async () => {
    const { tenant, scim } = await directory();
    const { tenantId } = tenant;
    const group = await groupIn(scim);
    // People made straight in the database, in two statements: 5,000 through SCIM would take
    // the test's whole minute (and an idle keep-alive connection meanwhile).
    const tag = unique('bulk');
    await h.db.execute(sql`insert into users (id, email, email_canonical)
      select gen_random_uuid(), address, address
      from (select ${tag} || '-' || i || '@example.org' as address from generate_series(1, 5000) as i) as made`);
    const rows = await h.db.execute(sql`insert into tenant_memberships (id, tenant_id, user_id, role)
      select gen_random_uuid(), ${tenantId}::uuid, id, 'STUDENT' from users where email like ${`${tag}-%`}
      returning id`);
    const ids =
      (rows as unknown as { rows?: { id: string }[] }).rows ?? (rows as unknown as { id: string }[]);
    expect(ids).toHaveLength(5000);
    const body = patchOp({ op: 'add', path: 'members', value: ids.map(({ id }) => ({ value: id })) });
    expect(JSON.stringify(body).length).toBeGreaterThan(100 * 1024);
    const answer = await scim.patch(`/Groups/${group.id}`, body);
    expect(answer.status).toBe(204);
    const read = await scim.get(`/Groups/${group.id}`);
    expect(read.body.members).toHaveLength(5000);
  }, 120_000);
});
