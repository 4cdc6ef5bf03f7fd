import type { WebhookDeliveryStatus } from '@tms/contract';
import { and, desc, eq, exists, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor, Transaction } from '../../db/database.js';
import {
  auditEvents,
  type WebhookDeliveryRow,
  webhookDeliveries,
  webhookEndpoints,
} from '../../db/schema.js';
import { ownedBy, readRuleOf, type WebhookOwner } from './webhooks.repository.js';

/*
 * The API's side of the outbox: the deliveries list and the retry. The delivery worker's own SQL
 * (claiming, attempting, backing off) is not here.
 */

const d = webhookDeliveries;
const e = webhookEndpoints;

/** A delivery as the API shows it: with its event's action (`type`, as the receiver gets it). */
export type DeliveryView = WebhookDeliveryRow & { type: string };

const DELIVERY_KEYS = [
  'id',
  'endpointId',
  'auditEventId',
  'position',
  'status',
  'attempts',
  'nextAttemptAt',
  'lastAttemptAt',
  'lastStatusCode',
  'lastError',
  'lastResponse',
  'deliveredAt',
  'createdAt',
] as const satisfies readonly (keyof WebhookDeliveryRow)[];
type DeliveryKey = (typeof DELIVERY_KEYS)[number];

/** A delivery's columns as some source (the table, a subquery, a CTE) has them, for a flat selection. */
const deliveryFieldsOf = <T extends Record<DeliveryKey, unknown>>(source: T) =>
  Object.fromEntries(DELIVERY_KEYS.map((key) => [key, source[key]])) as Pick<T, DeliveryKey>;

/**
 * The endpoint and, beside it, a page of its deliveries, newest first by position (the order the
 * receiver gets them in); one statement with the caller. No item: no such endpoint here; a null
 * item: an endpoint with no delivery (on this page). The page joins the audit event for its
 * action: a delivery whose event is past retention has nothing left to send, and is not shown.
 */
export async function listDeliveriesAs(
  db: Executor,
  subject: string,
  owner: WebhookOwner,
  options: { webhookId: string; status?: WebhookDeliveryStatus; beforePosition?: number; limit: number },
): Promise<CallerRead<DeliveryView | null>> {
  const statement = selectWithCaller(
    db,
    { ...readRuleOf(owner), orderBy: (item) => [desc(item.position as SQL)] },
    (gate) => {
      const page = db
        .select({ ...deliveryFieldsOf(d), type: auditEvents.action })
        .from(d)
        .innerJoin(auditEvents, eq(auditEvents.id, d.auditEventId))
        .where(
          and(
            eq(d.endpointId, e.id),
            options.status ? eq(d.status, options.status) : undefined,
            options.beforePosition === undefined ? undefined : lt(d.position, options.beforePosition),
          ),
        )
        .orderBy(desc(d.position))
        .limit(options.limit)
        .as('delivery');
      return db
        .select({
          // A column of the endpoint, and first: drizzle takes a left-joined row whose first
          // column is null for no row at all, and an endpoint without deliveries has one.
          endpointUrl: e.url,
          ...deliveryFieldsOf(page),
          type: page.type,
        })
        .from(e)
        .leftJoinLateral(page, sql`true`)
        .where(
          and(
            gate,
            ownedBy(owner === null ? null : sql.placeholder('tenantId')),
            eq(e.id, options.webhookId),
          ),
        );
    },
  );
  const { caller, items } = callerReadOf(await statement.execute({ subject, tenantId: owner }));
  return {
    caller,
    items: items.map(({ endpointUrl: _url, ...delivery }) =>
      delivery.id === null ? null : (delivery as DeliveryView),
    ),
  };
}

/**
 * Makes the delivery PENDING and due now, in one statement that also says why not: no row, no
 * such endpoint here; a row without a delivery, no such delivery of it (or its event is past
 * retention: nothing to send). Attempts and position are kept: a retried delivery keeps its place
 * in the endpoint's order, ahead of what was queued after it.
 */
export async function retryDelivery(
  tx: Transaction,
  owner: WebhookOwner,
  webhookId: string,
  deliveryId: string,
): Promise<{ endpointRef: string; delivery: DeliveryView | null } | undefined> {
  const endpoint = tx.$with('endpoint').as(
    tx
      .select({ endpointRef: sql<string>`${e.id}`.as('endpoint_ref') })
      .from(e)
      .where(and(ownedBy(owner), eq(e.id, webhookId))),
  );
  const retried = tx.$with('retried').as(
    tx
      .update(d)
      .set({ status: 'PENDING', nextAttemptAt: sql`now()` })
      .where(
        and(
          eq(d.id, deliveryId),
          inArray(d.endpointId, tx.select({ id: endpoint.endpointRef }).from(endpoint)),
          exists(tx.select({ one: sql`1` }).from(auditEvents).where(eq(auditEvents.id, d.auditEventId))),
        ),
      )
      .returning(),
  );
  const [row] = await tx
    .with(endpoint, retried)
    .select({ endpointRef: endpoint.endpointRef, ...deliveryFieldsOf(retried), type: auditEvents.action })
    .from(endpoint)
    .leftJoin(retried, sql`true`)
    .leftJoin(auditEvents, eq(auditEvents.id, retried.auditEventId));
  if (!row) return undefined;
  const { endpointRef, ...delivery } = row;
  return { endpointRef, delivery: delivery.id === null ? null : (delivery as DeliveryView) };
}

/**
 * Makes the endpoint's queued deliveries due now: an endpoint that is enabled again resumes at
 * once, not when the backoff it was in would have ended.
 */
export async function makeQueueDue(tx: Transaction, webhookId: string): Promise<void> {
  await tx
    .update(d)
    .set({ nextAttemptAt: sql`now()` })
    .where(and(eq(d.endpointId, webhookId), eq(d.status, 'PENDING')));
}
