import { WEBHOOKS_PER_OWNER_MAX } from '@tms/contract';
import { count, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEndpoints } from '../../src/db/schema.js';
import { type Actor, createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';
import { hookBody } from '../webhooks/helpers.js';

// The endpoint limit under concurrent creations, on a pool of connections (PGlite runs one
// transaction at a time, so no race can happen there): a tenant's are serialised by its row lock,
// the platform's by an advisory lock. Without them, each creation counts before the others insert.
const RACERS = 10;
const HEADROOM = 3;

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

const create = (path: string, token: string) =>
  fetch(`${h.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(hookBody()),
  }).then(async (res) => ({ status: res.status, code: (await jsonOf(res)).error?.code }));

async function race(path: string, token: string) {
  const answers = await Promise.all(Array.from({ length: RACERS }, () => create(path, token)));
  return {
    created: answers.filter((a) => a.status === 201).length,
    refused: answers.filter((a) => a.status === 409 && a.code === 'WEBHOOK_LIMIT_REACHED').length,
  };
}

describe('the endpoint limit, raced', () => {
  it(`lets exactly ${HEADROOM} of ${RACERS} concurrent creations through for a tenant`, async () => {
    const t = await createTenantFixture(h);
    const path = `/tenants/${t.tenantId}/webhooks`;
    for (let i = 0; i < WEBHOOKS_PER_OWNER_MAX - HEADROOM; i++)
      expect((await create(path, t.owner.token)).status).toBe(201);
    expect(await race(path, t.owner.token)).toEqual({ created: HEADROOM, refused: RACERS - HEADROOM });
    const [row] = await h.db
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.tenantId, t.tenantId));
    expect(row?.n).toBe(WEBHOOKS_PER_OWNER_MAX);
  });

  it(`lets exactly ${HEADROOM} of ${RACERS} concurrent creations through for the platform`, async () => {
    for (let i = 0; i < WEBHOOKS_PER_OWNER_MAX - HEADROOM; i++)
      expect((await create('/admin/webhooks', superAdmin.token)).status).toBe(201);
    expect(await race('/admin/webhooks', superAdmin.token)).toEqual({
      created: HEADROOM,
      refused: RACERS - HEADROOM,
    });
    const [row] = await h.db
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(isNull(webhookEndpoints.tenantId));
    expect(row?.n).toBe(WEBHOOKS_PER_OWNER_MAX);
  });
});
