import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { Database } from '../../src/db/database.js';
import {
  tenants,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
  webhookDeliveries,
  webhookEndpoints,
} from '../../src/db/schema.js';
import { SYSTEM_AUDIT } from '../../src/modules/audit/audit-context.js';
import { recordAuditEvent } from '../../src/modules/audit/audit-events.repository.js';
import type { Resolver } from '../../src/modules/webhooks/target-address.js';
import { type DispatcherOptions, WebhookDispatcher } from '../../src/modules/webhooks/webhook-dispatcher.js';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signing.js';

/** The receivers of these tests listen on 127.0.0.1: the policy of tests and local development. */
export const LOCAL_POLICY = { allowPrivateNetworks: true, requireHttps: false };

/**
 * No test resolves a name through the real DNS: a name that a test did not stub does not resolve.
 */
const noRealDns: Resolver = async (host) => {
  throw new Error(`${host}: tests never ask a real DNS; stub the resolver`);
};

/** A dispatcher driven by the test (never started), with the exact schedule (no jitter). */
export function testDispatcher(
  database: Pick<DatabaseHandle, 'db' | 'kind'>,
  options: Partial<DispatcherOptions> = {},
) {
  return new WebhookDispatcher({
    db: database.db,
    kind: database.kind,
    policy: LOCAL_POLICY,
    pollIntervalMs: 0,
    concurrency: 4,
    random: () => 0.5,
    resolve: noRealDns,
    ...options,
  });
}

export async function insertTenantRow(db: Database): Promise<string> {
  const id = uuidv7();
  await db.insert(tenants).values({ id, slug: `hooks-${id.slice(-12)}`, name: 'Webhooks' });
  return id;
}

/** An endpoint as the API would make it, inserted directly (the routes are not under test here). */
export async function insertEndpoint(
  db: Database,
  values: Partial<typeof webhookEndpoints.$inferInsert> & { url: string },
): Promise<WebhookEndpointRow> {
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ id: uuidv7(), tenantId: null, events: ['*'], secret: generateWebhookSecret(), ...values })
    .returning();
  if (!row) throw new Error('no endpoint inserted');
  return row;
}

/**
 * `count` changes of the tenant (or platform changes, tenantId null), each in its own transaction
 * as a request makes them: `tenant.updated` events numbered in `after.name`.
 */
export async function recordEvents(db: Database, tenantId: string | null, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    await db.transaction((tx) =>
      recordAuditEvent(tx, {
        tenantId,
        action: tenantId ? 'tenant.updated' : 'super_admin.granted',
        target: tenantId ? { type: 'tenant', id: tenantId } : { type: 'user', id: randomUUID() },
        before: { name: `change ${i - 1}` },
        after: { name: `change ${i}` },
        context: SYSTEM_AUDIT,
      }),
    );
  }
}

/**
 * An instant at which every delivery recorded so far is due. Not `new Date()`: a Date is truncated
 * to the millisecond and PostgreSQL's times are not, so an event recorded within the current
 * millisecond would not be due yet, and a drain would stop one short.
 */
export const afterWhatWasRecorded = (): Date => new Date(Date.now() + 1);

/** The endpoint's deliveries in queue order. */
export const deliveriesOf = (db: Database, endpointId: string): Promise<WebhookDeliveryRow[]> =>
  db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(asc(webhookDeliveries.position));

export async function endpointRow(db: Database, endpointId: string): Promise<WebhookEndpointRow> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
  if (!row) throw new Error(`no endpoint ${endpointId}`);
  return row;
}

/** Rewrites or removes audit rows as the erasure and the purge may (the trail refuses anyone else). */
export async function maintainAuditTrail(db: Database, statement: ReturnType<typeof sql>): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local app.audit_maintenance = 'on'`);
    await tx.execute(statement);
  });
}

/** Whether `fn` returns rather than throws. */
export function returns(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
