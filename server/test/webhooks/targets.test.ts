import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/modules/webhooks/target-address.js';
import { type Actor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { hookBody, PUBLIC_URL, registerAs, type WebhookWorld, webhookWorld } from './helpers.js';

/**
 * Registration refuses URLs that point inside: a service that POSTs where its users say is a
 * request forger for them (SSRF). These servers run with private networks NOT allowed, as in
 * production. Names are resolved by a stub, never by the network's DNS; `localhost` by the
 * system, from /etc/hosts.
 */
const NAMES: Record<string, string[]> = {
  'public.example.test': ['93.184.215.14'],
  'internal.example.test': ['10.1.2.3'],
  // Public first, private second: every address counts, not the first one.
  'split.example.test': ['93.184.215.14', '192.168.1.10'],
  'metadata.example.test': ['169.254.169.254'],
};
const stubResolver: Resolver = async (host) => {
  if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  const addresses = NAMES[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let h: TestServer;
let stubbed: TestServer;
let httpsOnly: TestServer;
let w: WebhookWorld;
let superAdmin: Actor;
beforeAll(async () => {
  // The harness's resolver: localhost through the system (/etc/hosts), nothing else.
  h = await startTestServer({ webhooks: { allowPrivateNetworks: false, requireHttps: false } });
  stubbed = await startTestServer({
    database: h.database,
    webhooks: { allowPrivateNetworks: false, requireHttps: false, resolve: stubResolver },
  });
  httpsOnly = await startTestServer({
    database: h.database,
    webhooks: { allowPrivateNetworks: false, requireHttps: true, resolve: stubResolver },
  });
  w = await webhookWorld(h);
  superAdmin = await createSuperAdmin(h);
});
afterAll(async () => {
  await httpsOnly?.close();
  await stubbed?.close();
  await h?.close();
});

const refusedTarget = (message: RegExp) => ({ status: 422, code: 'WEBHOOK_TARGET_REFUSED', message });

/** The registration's refusal, message included (it says why, for the endpoint's owner). */
async function registering(server: TestServer, url: string) {
  const res = await fetch(`${server.baseUrl}/tenants/${w.tenantId}/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(hookBody({ url })),
  });
  const body = await jsonOf(res);
  return { status: res.status, code: body.error?.code, message: body.error?.message ?? '' };
}

describe('registration refuses what is not the public internet', () => {
  it.each([
    ['http://127.0.0.1/x', /127\.0\.0\.1 is a loopback address/],
    ['http://10.0.0.1/x', /10\.0\.0\.1 is a private address/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://[::1]/x', /::1 is a loopback address/],
    ['http://[::ffff:127.0.0.1]/x', /loopback/],
    ['http://100.100.100.200/x', /carrier-grade NAT/],
    ['http://0.0.0.0/x', /unspecified/],
    ['http://localhost:9/x', /localhost resolves to 127\.0\.0\.1, a loopback address/],
  ])('%s: 422 WEBHOOK_TARGET_REFUSED', async (url, message) => {
    expect(await registering(h, url)).toMatchObject(refusedTarget(message));
  });

  it('checks every address a name resolves to', async () => {
    expect(await registering(stubbed, 'https://internal.example.test/x')).toMatchObject(
      refusedTarget(/internal\.example\.test resolves to 10\.1\.2\.3, a private address/),
    );
    expect(await registering(stubbed, 'https://split.example.test/x')).toMatchObject(
      refusedTarget(/192\.168\.1\.10/),
    );
    expect(await registering(stubbed, 'https://metadata.example.test/latest')).toMatchObject(
      refusedTarget(/169\.254\.169\.254/),
    );
  });

  it('accepts a public address, and a name that resolves to one or not yet at all', async () => {
    expect((await registering(stubbed, PUBLIC_URL)).status).toBe(201);
    expect((await registering(stubbed, 'https://public.example.test/hook')).status).toBe(201);
    // DNS may be set up after the endpoint: every delivery attempt checks again.
    expect((await registering(stubbed, 'https://not-yet.example.test/hook')).status).toBe(201);
  });

  it('refuses plain http when HTTPS is required', async () => {
    expect(await registering(httpsOnly, 'http://93.184.215.14/x')).toMatchObject(
      refusedTarget(/HTTPS is required/),
    );
    expect((await registering(httpsOnly, 'https://public.example.test/x')).status).toBe(201);
  });

  it('checks a new URL on update, and the platform’s endpoints too; nothing is changed', async () => {
    const { webhookId, url } = await registerAs(h, w.owner, w.tenantId);
    const owner = sdkOf(h, w.owner).webhooks;
    expect(await refusal(owner.update(w.tenantId, webhookId, { url: 'http://10.0.0.1/x' }))).toEqual(
      refused(422, 'WEBHOOK_TARGET_REFUSED'),
    );
    expect((await owner.get(w.tenantId, webhookId)).url).toBe(url);
    const admin = sdkOf(h, superAdmin).platformWebhooks;
    expect(await refusal(admin.create(hookBody({ url: 'http://127.0.0.1:5432/' })))).toEqual(
      refused(422, 'WEBHOOK_TARGET_REFUSED'),
    );
    const platform = await admin.create(hookBody());
    expect(await refusal(admin.update(platform.webhookId, { url: 'http://[::1]/x' }))).toEqual(
      refused(422, 'WEBHOOK_TARGET_REFUSED'),
    );
  });
});
