import { and, asc, eq, gt, isNull, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor, Transaction } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { type WebhookEndpointRow, webhookEndpoints } from '../../db/schema.js';

const e = webhookEndpoints;

/**
 * Whose endpoints: a tenant's (its id), or the platform's (null), which receive every tenant's
 * events and the platform's.
 */
export type WebhookOwner = string | null;

/**
 * The scope rule, in SQL: an endpoint of another tenant, a platform endpoint asked for under a
 * tenant, or a tenant's under /admin/webhooks, is not there (WEBHOOK_NOT_FOUND, as any missing one).
 */
export const ownedBy = (owner: WebhookOwner | Placeholder): SQL =>
  owner === null ? isNull(e.tenantId) : eq(e.tenantId, owner);

const TENANT_READ = { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') } as const;
const PLATFORM_READ = { rule: 'superAdmin' } as const;

/** Tenant reads are tenant routes, platform reads super administrators': their statements are gated so. */
export const readRuleOf = (owner: WebhookOwner) => (owner === null ? PLATFORM_READ : TENANT_READ);

// Reads take the whole row, secrets too, as toWebhookDto does: the DTO is what leaves them out.
const endpointWithCaller = (platform: boolean) =>
  preparedPer((db) =>
    selectWithCaller(db, platform ? PLATFORM_READ : TENANT_READ, (gate) =>
      db
        .select()
        .from(e)
        .where(
          and(
            gate,
            ownedBy(platform ? null : sql.placeholder('tenantId')),
            eq(e.id, sql.placeholder('webhookId')),
          ),
        )
        .limit(1),
    ).prepare(platform ? 'platform_webhook_with_caller' : 'webhook_with_caller'),
  );
const WITH_CALLER = { tenant: endpointWithCaller(false), platform: endpointWithCaller(true) };

/** The caller (with its role in the tenant, for a tenant's endpoint) and the endpoint, in one statement. */
export async function findEndpointAs(
  db: Executor,
  subject: string,
  owner: WebhookOwner,
  webhookId: string,
): Promise<CallerRead<WebhookEndpointRow>> {
  const statement = (owner === null ? WITH_CALLER.platform : WITH_CALLER.tenant)(db);
  return callerReadOf(await statement.execute({ subject, tenantId: owner, webhookId }));
}

/**
 * The caller and a page of the owner's endpoints in creation order (the key is the UUIDv7 id), in
 * one statement. A tenant has at most WEBHOOKS_PER_OWNER_MAX of them: no index question here.
 */
export async function listEndpointsAs(
  db: Executor,
  subject: string,
  owner: WebhookOwner,
  page: { afterId?: string; limit: number },
): Promise<CallerRead<WebhookEndpointRow>> {
  const statement = selectWithCaller(
    db,
    { ...readRuleOf(owner), orderBy: (item) => [asc(item.id as SQL)] },
    (gate) =>
      db
        .select()
        .from(e)
        .where(
          and(
            gate,
            ownedBy(owner === null ? null : sql.placeholder('tenantId')),
            page.afterId === undefined ? undefined : gt(e.id, page.afterId),
          ),
        )
        .orderBy(asc(e.id))
        .limit(page.limit),
  );
  return callerReadOf(await statement.execute({ subject, tenantId: owner }));
}

export type NewEndpoint = {
  owner: WebhookOwner;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
};

/**
 * Inserts the endpoint unless its owner already has `max`: one statement, the count in its WHERE.
 * Exact only while nobody else inserts for the owner meanwhile: the caller holds the tenant's row
 * lock (every tenant write does), or the platform endpoints' advisory lock.
 */
export async function insertEndpointWithin(
  tx: Transaction,
  endpoint: NewEndpoint,
  max: number,
): Promise<WebhookEndpointRow | undefined> {
  // insert … select lists every column, in the table's order (drizzle checks the keys and order).
  const row = tx
    .select({
      id: sql<string>`${uuidv7()}::uuid`.as('id'),
      tenantId: sql<string | null>`${endpoint.owner}::uuid`.as('tenant_id'),
      url: sql<string>`${endpoint.url}::text`.as('url'),
      events: sql<string[]>`${sql.param(endpoint.events, e.events)}::text[]`.as('events'),
      description: sql<string | null>`${endpoint.description}::text`.as('description'),
      enabled: sql<boolean>`true`.as('enabled'),
      disabledReason: sql<string | null>`null::text`.as('disabled_reason'),
      secret: sql<string>`${endpoint.secret}::text`.as('secret'),
      previousSecret: sql<string | null>`null::text`.as('previous_secret'),
      previousSecretUntil: sql<Date | null>`null::timestamptz`.as('previous_secret_until'),
      failingSince: sql<Date | null>`null::timestamptz`.as('failing_since'),
      createdAt: sql<Date>`now()`.as('created_at'),
      updatedAt: sql<Date>`now()`.as('updated_at'),
    })
    .from(sql`(select 1) as "one"`)
    .where(sql`(select count(*) from ${e} where ${ownedBy(endpoint.owner)}) < ${max}`);
  const [inserted] = await tx.insert(e).select(row).returning();
  return inserted;
}

/**
 * The endpoint, locked until commit: its change and the event's `before` are then the same row,
 * even against the delivery worker (which disables failing endpoints without the tenant's lock).
 */
export async function findEndpointForUpdate(
  tx: Transaction,
  owner: WebhookOwner,
  webhookId: string,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await tx
    .select()
    .from(e)
    .where(and(ownedBy(owner), eq(e.id, webhookId)))
    .for('update');
  return row;
}

export type EndpointChanges = Partial<
  Pick<WebhookEndpointRow, 'url' | 'events' | 'description' | 'enabled' | 'disabledReason' | 'failingSince'>
>;

export async function updateEndpoint(
  tx: Transaction,
  owner: WebhookOwner,
  webhookId: string,
  changes: EndpointChanges,
): Promise<WebhookEndpointRow> {
  const [row] = await tx
    .update(e)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(ownedBy(owner), eq(e.id, webhookId)))
    .returning();
  if (!row) throw new Error(`webhook endpoint ${webhookId} vanished under its row lock`);
  return row;
}

/**
 * A new secret; the one it replaces keeps signing, beside it, for a day, so that receivers can
 * switch without rejecting a delivery signed a moment before. A second rotation within that day
 * drops the oldest.
 */
export async function replaceSecret(
  tx: Transaction,
  owner: WebhookOwner,
  webhookId: string,
  secret: string,
): Promise<WebhookEndpointRow> {
  const [row] = await tx
    .update(e)
    .set({
      previousSecret: sql`${e.secret}`,
      previousSecretUntil: sql`now() + interval '24 hours'`,
      secret,
      updatedAt: sql`now()`,
    })
    .where(and(ownedBy(owner), eq(e.id, webhookId)))
    .returning();
  if (!row) throw new Error(`webhook endpoint ${webhookId} vanished under its row lock`);
  return row;
}

/** Deletes the endpoint (its deliveries go with it: ON DELETE CASCADE) and answers it as it was. */
export async function deleteEndpoint(
  tx: Transaction,
  owner: WebhookOwner,
  webhookId: string,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await tx
    .delete(e)
    .where(and(ownedBy(owner), eq(e.id, webhookId)))
    .returning();
  return row;
}

/**
 * Serialises the creation of platform endpoints until commit, so that their limit holds under
 * races: they have no row to lock, as a tenant's have. The key is a name's hash, in the one-key
 * space (the delivery worker's endpoint locks use the two-key one, which never meets it).
 */
export async function lockPlatformEndpoints(tx: Transaction): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('webhook_endpoints:platform'))`);
}
