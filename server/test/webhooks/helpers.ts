import type { CreateWebhookBody } from '@tms/contract';
import { eq } from 'drizzle-orm';
import type { Database } from '../../src/db/database.js';
import { webhookDeliveries, webhookEndpoints } from '../../src/db/schema.js';
import { type Actor, addMember, createTenantFixture } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';

/**
 * A public address, written as an IP so that nothing resolves it: accepted at registration. No
 * test runs the delivery worker, so nothing is ever sent to it.
 */
export const PUBLIC_URL = 'https://93.184.215.14/hooks/tms';

export const SECRET = /^whsec_[A-Za-z0-9+/=]+$/;

export const hookBody = (overrides: Partial<CreateWebhookBody> = {}): CreateWebhookBody => ({
  url: PUBLIC_URL,
  events: ['*'],
  ...overrides,
});

/** A tenant with its OWNER, an ADMIN, a TEACHER and a STUDENT. */
export async function webhookWorld(h: TestServer) {
  const t = await createTenantFixture(h);
  const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const teacher = (await addMember(h, t.tenantId, 'TEACHER')).actor;
  const student = (await addMember(h, t.tenantId, 'STUDENT')).actor;
  return { tenantId: t.tenantId, owner: t.owner, admin, teacher, student };
}
export type WebhookWorld = Awaited<ReturnType<typeof webhookWorld>>;

/** The OWNER registers an endpoint for every event. */
export const registerAs = (h: TestServer, owner: Actor, tenantId: string, body = hookBody()) =>
  sdkOf(h, owner).webhooks.create(tenantId, body);

/** The endpoint's row as stored, secrets included, read behind the API's back. */
export async function endpointRow(db: Database, webhookId: string) {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, webhookId));
  return row;
}

export async function deliveryRows(db: Database, webhookId: string) {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, webhookId));
}
