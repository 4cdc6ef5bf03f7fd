import { type AuditEvent, createClient } from '@tms/client';
import type { Actor } from './factories.js';
import type { TestServer } from './harness.js';

/** The typed SDK, as the given actor. */
export const sdkAs = (h: TestServer, actor: Actor) =>
  createClient({ baseUrl: h.baseUrl, token: actor.token });

/** Every event of the tenant, oldest first (the API answers newest first). */
export async function tenantEvents(h: TestServer, reader: Actor, tenantId: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for await (const event of sdkAs(h, reader).auditEvents.listAllForTenant(tenantId, { limit: 100 }))
    events.push(event);
  return events.reverse();
}

/** The newest event of the tenant. */
export async function lastEvent(h: TestServer, reader: Actor, tenantId: string): Promise<AuditEvent> {
  const page = await sdkAs(h, reader).auditEvents.listForTenant(tenantId, { limit: 1 });
  const [event] = page.items;
  if (!event) throw new Error(`tenant ${tenantId} has no audit event`);
  return event;
}
