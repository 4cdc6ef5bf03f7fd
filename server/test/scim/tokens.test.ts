import { createClient } from '@tms/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenants } from '../../src/db/schema.js';
import { addMember, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { SCIM_JSON, scimClient } from '../support/scim.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const sdkOf = (token: string) => createClient({ baseUrl: h.baseUrl, token, retries: false });

describe('SCIM tokens', () => {
  it('are shown once, listed without their secret, and open only their tenant', async () => {
    const a = await createTenantFixture(h);
    const b = await createTenantFixture(h);
    const sdk = sdkOf(a.owner.token);
    const made = await sdk.scimTokens.create(a.tenantId, { description: 'Entra ID' });
    expect(made.token).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
    expect(made.baseUrl).toBe(`${h.baseUrl}/tenants/${a.tenantId}/scim/v2`);
    expect(made.description).toBe('Entra ID');
    const listed = await sdk.scimTokens.list(a.tenantId);
    expect(listed).toEqual([
      {
        scimTokenId: made.scimTokenId,
        description: 'Entra ID',
        createdAt: made.createdAt,
        expiresAt: null,
        lastUsedAt: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(made.token);

    const own = await scimClient(h, a.tenantId, made.token).get('/Users');
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toContain(SCIM_JSON);
    const [used] = await sdk.scimTokens.list(a.tenantId);
    expect(used?.lastUsedAt).not.toBeNull();

    // Another tenant's SCIM routes, and the API's own routes, are closed to it.
    const other = await scimClient(h, b.tenantId, made.token).get('/Users');
    expect(other.status).toBe(401);
    expect(other.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '401',
    });
    const api = await fetch(`${h.baseUrl}/tenants/${a.tenantId}/memberships`, {
      headers: { authorization: `Bearer ${made.token}` },
    });
    expect(api.status).toBe(401);
  });

  it("refuses a user's JWT, even the OWNER's, on the SCIM routes", async () => {
    const a = await createTenantFixture(h);
    const answer = await scimClient(h, a.tenantId, a.owner.token).get('/Users');
    expect(answer.status).toBe(401);
    expect(answer.body.status).toBe('401');
  });

  it('stop working at once when revoked, two live together for rotation', async () => {
    const a = await createTenantFixture(h);
    const sdk = sdkOf(a.owner.token);
    const first = await sdk.scimTokens.create(a.tenantId);
    const second = await sdk.scimTokens.create(a.tenantId, { description: 'rotation' });
    expect((await scimClient(h, a.tenantId, first.token).get('/Users')).status).toBe(200);
    expect((await scimClient(h, a.tenantId, second.token).get('/Users')).status).toBe(200);
    await sdk.scimTokens.revoke(a.tenantId, first.scimTokenId);
    expect((await scimClient(h, a.tenantId, first.token).get('/Users')).status).toBe(401);
    expect((await scimClient(h, a.tenantId, second.token).get('/Users')).status).toBe(200);
    await expect(sdk.scimTokens.revoke(a.tenantId, first.scimTokenId)).rejects.toMatchObject({
      code: 'SCIM_TOKEN_NOT_FOUND',
    });
  });

  it('stop working when expired or when their tenant is deleted', async () => {
    const a = await createTenantFixture(h);
    const sdk = sdkOf(a.owner.token);
    const soon = await sdk.scimTokens.create(a.tenantId, {
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    const lasting = await sdk.scimTokens.create(a.tenantId);
    expect((await scimClient(h, a.tenantId, soon.token).get('/Users')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await scimClient(h, a.tenantId, soon.token).get('/Users')).status).toBe(401);
    await h.db.update(tenants).set({ deletedAt: new Date() }).where(eq(tenants.id, a.tenantId));
    expect((await scimClient(h, a.tenantId, lasting.token).get('/Users')).status).toBe(401);
  });

  it('are made and revoked by OWNERs and ADMINs only, with an event each and never the secret', async () => {
    const a = await createTenantFixture(h);
    const admin = await addMember(h, a.tenantId, 'ADMIN');
    const teacher = await addMember(h, a.tenantId, 'TEACHER');
    await expect(sdkOf(teacher.actor.token).scimTokens.create(a.tenantId)).rejects.toMatchObject({
      code: 'INSUFFICIENT_ROLE',
    });
    const made = await sdkOf(admin.actor.token).scimTokens.create(a.tenantId, { description: unique('d') });
    await sdkOf(admin.actor.token).scimTokens.revoke(a.tenantId, made.scimTokenId);
    const events = await sdkOf(a.owner.token).auditEvents.listForTenant(a.tenantId, { limit: 10 });
    const actions = events.items.map((event) => event.action);
    expect(actions).toEqual(expect.arrayContaining(['scim_token.created', 'scim_token.revoked']));
    expect(JSON.stringify(events.items)).not.toContain(made.token);
  });
});
