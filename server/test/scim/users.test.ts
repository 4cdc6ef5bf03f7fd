import { createClient } from '@tms/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createActor, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import {
  newUser,
  patchOp,
  type ScimClient,
  type ScimResource,
  type ScimResponse,
  scimClient,
  scimTokenOf,
} from '../support/scim.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const sdkOf = (token: string) => createClient({ baseUrl: h.baseUrl, token, retries: false });
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

async function directory() {
  const tenant = await createTenantFixture(h);
  const token = await scimTokenOf(h, tenant.owner, tenant.tenantId);
  return { tenant, scim: scimClient(h, tenant.tenantId, token), sdk: sdkOf(tenant.owner.token) };
}

const address = (prefix = 'user') => `${unique(prefix)}@Example.org`;

async function created(scim: ScimClient, email = address(), extra: Record<string, unknown> = {}) {
  const answer = await scim.post('/Users', newUser(email, extra));
  expect(answer.status).toBe(201);
  return answer.body;
}

describe('SCIM Users: create, read, list', () => {
  it('creates a directory-managed membership, answered in SCIM form with its version', async () => {
    const { tenant, scim, sdk } = await directory();
    const email = address();
    const answer = await scim.post('/Users', newUser(email, { externalId: 'ext-1', displayName: 'Ada L.' }));
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toContain('application/scim+json');
    expect(answer.headers.get('location')).toBe(`${scim.base}/Users/${answer.body.id}`);
    expect(answer.headers.get('etag')).toBe('"2"');
    expect(answer.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: email,
      externalId: 'ext-1',
      displayName: 'Ada L.',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      active: true,
      emails: [{ value: email, primary: true }],
      meta: { resourceType: 'User', version: '"2"', location: `${scim.base}/Users/${answer.body.id}` },
    });
    const membership = await sdk.memberships.get(tenant.tenantId, answer.body.id);
    expect(membership).toMatchObject({ role: 'STUDENT', status: 'ACTIVE', managedBy: 'scim' });
    expect((await scim.get(`/Users/${answer.body.id}`)).body).toEqual(answer.body);
  });

  it('answers 409 uniqueness for an address already a member, whatever its case', async () => {
    const { scim } = await directory();
    const email = address();
    await created(scim, email);
    const again = await scim.post('/Users', newUser(email.toUpperCase()));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      schemas: [ERROR],
      status: '409',
      scimType: 'uniqueness',
      detail: expect.any(String),
    });
  });

  it('lists every membership, hand-added ones with their name, and filters as directories do', async () => {
    const { tenant, scim } = await directory();
    const ada = await created(scim, address('ada'), { externalId: 'ada-1', displayName: 'Ada Lovelace' });
    const grace = await created(scim, address('grace'), {
      externalId: 'grace-1',
      displayName: 'Grace Hopper',
    });
    const hand = await createActor(h, { name: 'By Hand' });
    await addMember(h, tenant.tenantId, 'TEACHER', hand);
    const all = await scim.get('/Users');
    expect(all.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 4,
      startIndex: 1,
      itemsPerPage: 4,
    });
    expect(all.body.Resources.find((user) => user.userName === hand.email)).toMatchObject({
      displayName: 'By Hand',
      name: { formatted: 'By Hand' },
      active: true,
    });
    const ids = (answer: ScimResponse) => answer.body.Resources.map((user) => user.id);
    const filter = (text: string) => scim.get(`/Users?filter=${encodeURIComponent(text)}`);
    expect(ids(await filter(`userName eq "${ada.userName.toUpperCase()}"`))).toEqual([ada.id]);
    expect(ids(await filter(`emails.value eq "${grace.userName}"`))).toEqual([grace.id]);
    expect(ids(await filter(`emails[type eq "work" and value eq "${grace.userName}"]`))).toEqual([grace.id]);
    expect(ids(await filter('externalId eq "ada-1"'))).toEqual([ada.id]);
    expect(ids(await filter('externalId eq "ADA-1"'))).toEqual([]);
    expect(ids(await filter(`id eq "${grace.id}"`))).toEqual([grace.id]);
    expect(ids(await filter('id eq "not-a-uuid"'))).toEqual([]);
    expect(ids(await filter('displayName eq "grace hopper"'))).toEqual([grace.id]);
    expect(ids(await filter('externalId eq "ada-1" or externalId eq "grace-1"'))).toEqual([ada.id, grace.id]);
    expect(ids(await filter('externalId pr and displayName sw "Ada"'))).toEqual([ada.id]);
    expect(ids(await filter('displayName co "HOPP"'))).toEqual([grace.id]);
    expect(ids(await filter('displayName co "%"'))).toEqual([]);
    expect(ids(await filter('not (externalId pr) and userName ew "example.test"'))).toHaveLength(2);
    expect(ids(await filter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x@y.z"'))).toEqual([]);
    const unknown = await filter('userName eq "nobody@example.org"');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ totalResults: 0, Resources: [] });
    for (const bad of [
      'userName eq',
      'userName zz "a"',
      '(userName eq "a"',
      'nickName eq "a"',
      'userName eq "a" junk',
    ]) {
      const refused = await filter(bad);
      expect(refused.status, bad).toBe(400);
      expect(refused.body, bad).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    }
  });

  it('pages by 1-based startIndex and count, stably', async () => {
    const { scim } = await directory();
    for (let i = 0; i < 4; i++) await created(scim);
    const every = (await scim.get('/Users')).body.Resources.map((user) => user.id);
    const page = await scim.get('/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((user) => user.id)).toEqual(every.slice(1, 3));
    const none = await scim.get('/Users?count=0');
    expect(none.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    expect((await scim.get('/Users?startIndex=x')).status).toBe(400);
  });

  it("answers 404 in SCIM form for an id that is not a UUID or is another tenant's", async () => {
    const { scim } = await directory();
    const other = await directory();
    const theirs = await created(other.scim);
    for (const id of ['not-a-uuid', theirs.id, '01900000-0000-7000-8000-000000000000']) {
      for (const answer of [
        await scim.get(`/Users/${id}`),
        await scim.put(`/Users/${id}`, newUser(address())),
        await scim.patch(`/Users/${id}`, patchOp({ op: 'replace', path: 'active', value: false })),
        await scim.delete(`/Users/${id}`),
      ]) {
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ schemas: [ERROR], status: '404' });
      }
    }
  });
});

describe('SCIM Users: what real clients send', () => {
  it('suspends on active false (role kept), still found with active false, and reactivates', async () => {
    const { tenant, scim, sdk } = await directory();
    const user = await created(scim);
    const off = await scim.patch(
      `/Users/${user.id}`,
      patchOp({ op: 'Replace', path: 'active', value: 'False' }),
    );
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect(await sdk.memberships.get(tenant.tenantId, user.id)).toMatchObject({
      status: 'SUSPENDED',
      role: 'STUDENT',
    });
    expect((await scim.get(`/Users/${user.id}`)).body.active).toBe(false);
    const found = await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${user.userName}"`)}`);
    expect(found.body.Resources[0]).toMatchObject({ id: user.id, active: false });
    const inactive = await scim.get(`/Users?filter=${encodeURIComponent('active eq false')}`);
    expect(inactive.body.Resources.map((u) => u.id)).toEqual([user.id]);
    const on = await scim.patch(`/Users/${user.id}`, patchOp({ op: 'replace', value: { active: 'True' } }));
    expect(on.body.active).toBe(true);
    expect(await sdk.memberships.get(tenant.tenantId, user.id)).toMatchObject({ status: 'ACTIVE' });
  });

  it('takes a PATCH without path whose keys are dotted or schema-prefixed, one-element arrays and null', async () => {
    const { scim } = await directory();
    const user = await created(scim, address(), { externalId: 'old' });
    const answer = await scim.patch(
      `/Users/${user.id}`,
      patchOp(
        {
          op: 'replace',
          value: {
            'name.givenName': 'Augusta',
            'urn:ietf:params:scim:schemas:core:2.0:User:name.familyName': 'King',
            'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber': '42',
            displayName: ['Augusta King'],
            externalId: null,
          },
        },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:core:2.0:User:active', value: [true] },
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      name: { givenName: 'Augusta', familyName: 'King' },
      displayName: 'Augusta King',
      active: true,
    });
    expect(answer.body.externalId).toBeUndefined();
    const removed = await scim.patch(`/Users/${user.id}`, patchOp({ op: 'remove', path: 'name.givenName' }));
    expect(removed.body.name).toEqual({ familyName: 'King', formatted: 'Augusta King' });
    const entra = await scim.patch(
      `/Users/${user.id}`,
      patchOp({ op: 'Replace', path: `emails[type eq "work"].value`, value: user.userName }),
    );
    expect(entra.status).toBe(200);
    const bad = await scim.patch(
      `/Users/${user.id}`,
      patchOp({ op: 'replace', path: 'active', value: 'maybe' }),
    );
    expect(bad).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    const noOps = await scim.patch(`/Users/${user.id}`, { Operations: [] });
    expect(noOps).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    const badOp = await scim.patch(`/Users/${user.id}`, patchOp({ op: 'move', path: 'active', value: true }));
    expect(badOp).toMatchObject({ status: 400, body: { status: '400' } });
    const changed = await scim.put(`/Users/${user.id}`, newUser('someone-else@example.org'));
    expect(changed).toMatchObject({ status: 400, body: { scimType: 'mutability' } });
  });

  it("keeps a user active on Okta's full PUT without active, and applies PUT's active false", async () => {
    const { scim } = await directory();
    const user = await created(scim);
    const { active: _active, ...withoutActive } = newUser(user.userName, { displayName: 'Renamed' });
    const put = await scim.put(`/Users/${user.id}`, withoutActive);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ active: true, displayName: 'Renamed' });
    const off = await scim.put(`/Users/${user.id}`, { ...withoutActive, active: false });
    expect(off.body.active).toBe(false);
    const stays = await scim.put(`/Users/${user.id}`, withoutActive);
    expect(stays.body.active).toBe(false);
  });

  it('checks If-Match against meta.version, and a sync that changes nothing keeps the version', async () => {
    const { scim } = await directory();
    const user = await created(scim);
    const same = await scim.put(`/Users/${user.id}`, newUser(user.userName), {
      'if-match': user.meta.version,
    });
    expect(same.status).toBe(200);
    expect(same.body.meta.version).toBe(user.meta.version);
    const stale = await scim.patch(
      `/Users/${user.id}`,
      patchOp({ op: 'replace', path: 'displayName', value: 'X' }),
      {
        'if-match': '"1"',
      },
    );
    expect(stale).toMatchObject({ status: 412, body: { status: '412' } });
  });

  it('removes on DELETE, and a POST with the externalId brings the person back', async () => {
    const { tenant, scim, sdk } = await directory();
    const email = address();
    const user = await created(scim, email, { externalId: 'back-1' });
    expect((await scim.delete(`/Users/${user.id}`)).status).toBe(204);
    expect((await scim.get(`/Users/${user.id}`)).status).toBe(404);
    await expect(sdk.memberships.get(tenant.tenantId, user.id)).rejects.toMatchObject({
      code: 'MEMBERSHIP_NOT_FOUND',
    });
    const back = await created(scim, email, { externalId: 'back-1' });
    expect(back).toMatchObject({ userName: email, externalId: 'back-1', active: true });
    const found = await scim.get(`/Users?filter=${encodeURIComponent('externalId eq "back-1"')}`);
    expect(found.body.Resources.map((u) => u.id)).toEqual([back.id]);
  });

  it('accepts application/json, refuses other media types, and takes bodies over the API limit', async () => {
    const { scim } = await directory();
    const plain = await scim.post('/Users', newUser(address()), { 'content-type': 'application/json' });
    expect(plain.status).toBe(201);
    const text = await scim.post('/Users', JSON.stringify(newUser(address())), {
      'content-type': 'text/plain',
    });
    expect(text).toMatchObject({ status: 415, body: { schemas: [ERROR], status: '415' } });
    const nul = await scim.post('/Users', newUser(address(), { displayName: 'a\u0000b' }));
    expect(nul).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    const nulFilter = await scim.get(`/Users?filter=${encodeURIComponent('displayName co "\\u0000"')}`);
    expect(nulFilter).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    const broken = await scim.post('/Users', '{"userName":');
    expect(broken).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    const big = await scim.post('/Users', newUser(address(), { padding: 'x'.repeat(300 * 1024) }));
    expect(big.status).toBe(201);
    const huge = await scim.post('/Users', newUser(address(), { padding: 'x'.repeat(1100 * 1024) }));
    expect(huge).toMatchObject({ status: 413, body: { status: '413' } });
  });
});

describe('SCIM Users and changes by hand', () => {
  it('refuses a hand change of role, status or removal of a directory-managed membership; dates stay editable', async () => {
    const { tenant, scim, sdk } = await directory();
    const user = await created(scim);
    const managed = { code: 'MEMBERSHIP_MANAGED_BY_DIRECTORY' };
    await expect(sdk.memberships.update(tenant.tenantId, user.id, { role: 'TEACHER' })).rejects.toMatchObject(
      managed,
    );
    await expect(sdk.memberships.suspend(tenant.tenantId, user.id)).rejects.toMatchObject(managed);
    await expect(sdk.memberships.remove(tenant.tenantId, user.id)).rejects.toMatchObject(managed);
    await scim.patch(`/Users/${user.id}`, patchOp({ op: 'replace', path: 'active', value: false }));
    await expect(sdk.memberships.reactivate(tenant.tenantId, user.id)).rejects.toMatchObject(managed);
    const dated = await sdk.memberships.update(tenant.tenantId, user.id, { endsAt: '2999-01-01T00:00:00Z' });
    expect(dated.endsAt).toBe('2999-01-01T00:00:00.000Z');
  });

  it('takes over a hand-added membership at its first SCIM write', async () => {
    const { tenant, scim, sdk } = await directory();
    const person = await addMember(h, tenant.tenantId, 'TEACHER');
    const [found] = (
      await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${person.actor.email}"`)}`)
    ).body.Resources as [ScimResource];
    expect((await sdk.memberships.get(tenant.tenantId, found.id)).managedBy).toBeNull();
    await scim.patch(`/Users/${found.id}`, patchOp({ op: 'add', path: 'externalId', value: 'taken-over' }));
    expect(await sdk.memberships.get(tenant.tenantId, found.id)).toMatchObject({
      managedBy: 'scim',
      role: 'STUDENT',
    });
  });

  it('never suspends or removes the last ACTIVE OWNER, and the trail says so; events name the token', async () => {
    const { tenant, scim, sdk } = await directory();
    const owner = tenant.ownerMembershipId;
    const off = await scim.patch(`/Users/${owner}`, patchOp({ op: 'replace', path: 'active', value: false }));
    expect(off).toMatchObject({
      status: 409,
      body: { schemas: [ERROR], status: '409', scimType: 'mutability' },
    });
    const gone = await scim.delete(`/Users/${owner}`);
    expect(gone).toMatchObject({ status: 409, body: { scimType: 'mutability' } });
    expect(await sdk.memberships.get(tenant.tenantId, owner)).toMatchObject({
      status: 'ACTIVE',
      role: 'OWNER',
    });
    await created(scim);
    const events = (await sdk.auditEvents.listForTenant(tenant.tenantId, { limit: 20 })).items;
    const refused = events.filter((event) => event.action === 'membership.directory_refused');
    expect(refused).toHaveLength(2);
    const [token] = await sdk.scimTokens.list(tenant.tenantId);
    const createdEvent = events.find((event) => event.action === 'membership.created');
    expect(createdEvent?.actor).toMatchObject({ userId: null, subject: `scim-token:${token?.scimTokenId}` });
  });
});

describe('SCIM rate budget', () => {
  it("gives a tenant's directory its own budget, above a person's", async () => {
    const limited = await startTestServer({ rateLimit: { max: 5, windowSeconds: 60 } });
    try {
      const tenant = await createTenantFixture(limited);
      const token = await scimTokenOf(limited, tenant.owner, tenant.tenantId);
      const scim = scimClient(limited, tenant.tenantId, token);
      const answers = await Promise.all(Array.from({ length: 40 }, () => scim.get('/ServiceProviderConfig')));
      expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
      expect(answers[0]?.headers.get('ratelimit-limit')).toBe('3000');
      const person = await Promise.all(
        Array.from({ length: 8 }, () =>
          fetch(`${limited.baseUrl}/me`, { headers: { authorization: `Bearer ${tenant.owner.token}` } }),
        ),
      );
      expect(person.map((answer) => answer.status)).toContain(429);
      // Bad tokens spend their address's budget, never the directory's.
      const forged = scimClient(limited, tenant.tenantId, `scim_${'x'.repeat(43)}`);
      const refused = await Promise.all(Array.from({ length: 8 }, () => forged.get('/Users')));
      expect(refused.map((answer) => answer.status)).toEqual(expect.arrayContaining([401, 429]));
      expect((await scim.get('/Users')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
