import { type Client, createClient, isApiError } from '@tms/client';
import type { CreateWebhookBody, ResponseCode } from '@tms/contract';
import { eq } from 'drizzle-orm';
import type { Database } from '../src/db/database.js';
import { webhookDeliveries, webhookEndpoints } from '../src/db/schema.js';
import { type Actor, addMember, createTenantFixture } from './factories.js';
import type { TestServer } from './harness.js';

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

/** The typed SDK, one try per call: a refusal is what a test wants to see. */
export const sdkOf = (h: TestServer, actor: { token: string }): Client =>
  createClient({ baseUrl: h.baseUrl, token: actor.token, retries: false });

/** What an SDK call was refused with. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; code: ResponseCode }> {
  try {
    await call;
  } catch (error) {
    if (isApiError(error)) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('expected the call to be refused');
}
export const refused = (status: number, code: ResponseCode) => ({ status, code });

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
