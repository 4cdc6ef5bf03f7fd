import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { rowsOf } from '../../db/rows.js';
import {
  type AuditEventRow,
  auditEvents,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
  webhookDeliveries,
  webhookEndpoints,
} from '../../db/schema.js';
import { SYSTEM_AUDIT } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import { toWebhookDto } from './webhooks.dto.js';

/**
 * The outbox as the delivery worker reads and writes it. Every instant is a parameter (`now`),
 * never SQL's now(): the worker's clock is the only one, so tests can step it through the retry
 * schedule and the day that disables an endpoint.
 *
 * An endpoint's queue is its PENDING deliveries by `position`; only the first (the head) is ever
 * sent, so a receiver sees events in commit order, and a head that backs off holds the rest back.
 */

/**
 * Enabled endpoints whose head is due at `now`, longest waiting first: candidates to claim. Read
 * without a lock; the claim then decides, and the head is read again under it.
 */
export async function findDueEndpoints(db: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await db.execute<{ id: string }>(sql`
    select endpoint.id from webhook_endpoints endpoint
    cross join lateral (
      select delivery.next_attempt_at from webhook_deliveries delivery
      where delivery.endpoint_id = endpoint.id and delivery.status = 'PENDING'
      order by delivery.position limit 1
    ) head
    where endpoint.enabled and head.next_attempt_at <= ${now.toISOString()}::timestamptz
    order by head.next_attempt_at
    limit ${limit}`);
  return rowsOf<{ id: string }>(rows).map((row) => row.id);
}

/** The head of an enabled endpoint's queue, with what sending it needs; `event` null once purged. */
export type QueueHead = {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
  event: AuditEventRow | null;
};

/**
 * The first `limit` deliveries of an enabled endpoint's queue, in order, due or not (a head that
 * backs off still holds its place); empty if the queue is empty or the endpoint is disabled (its
 * queue waits). Only the first is the head now; the others become it in turn as it is delivered,
 * which is how a worker sends several in a row on one read.
 */
export async function findQueueHeads(db: Executor, endpointId: string, limit: number): Promise<QueueHead[]> {
  return db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, event: auditEvents })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .leftJoin(auditEvents, eq(auditEvents.id, webhookDeliveries.auditEventId))
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.status, 'PENDING'),
        eq(webhookEndpoints.enabled, true),
      ),
    )
    .orderBy(asc(webhookDeliveries.position))
    .limit(limit);
}

/** One attempt's result, as the delivery keeps it. */
export type AttemptRecord = {
  at: Date;
  statusCode: number | null;
  error: string | null;
  response: string | null;
};

/**
 * The guard on `attempts` makes recording an attempt happen once: a delivery recorded by anyone
 * else since the head was read (it cannot be under the claim; it costs nothing to make sure) is
 * left as it is.
 */
const isHeadAsRead = (delivery: WebhookDeliveryRow) =>
  and(
    eq(webhookDeliveries.id, delivery.id),
    eq(webhookDeliveries.status, 'PENDING'),
    eq(webhookDeliveries.attempts, delivery.attempts),
  );

/**
 * 2xx answers, in queue order: those deliveries are done, and the endpoint is no longer failing.
 * One statement for all of them: a worker records a run of deliveries at once.
 */
export async function recordDelivered(
  tx: Executor,
  delivered: readonly { head: QueueHead; attempt: AttemptRecord }[],
): Promise<void> {
  const [first] = delivered;
  if (!first) return;
  const done = delivered.map(({ head, attempt }) => ({
    id: head.delivery.id,
    attempts: head.delivery.attempts + 1,
    at: attempt.at.toISOString(),
    status_code: attempt.statusCode,
    response: attempt.response,
  }));
  // isHeadAsRead's guard, row by row: still PENDING, with the attempts it was read with. One jsonb
  // parameter, which both drivers send alike (PGlite does not take arrays with nulls as parameters).
  await tx.execute(sql`
    update webhook_deliveries delivery set status = 'DELIVERED', attempts = done.attempts,
      last_attempt_at = done.at, last_status_code = done.status_code, last_error = null,
      last_response = done.response, delivered_at = done.at
    from jsonb_to_recordset(${JSON.stringify(done)}::jsonb)
      as done(id uuid, attempts int, at timestamptz, status_code int, response text)
    where delivery.id = done.id and delivery.status = 'PENDING' and delivery.attempts = done.attempts - 1`);
  if (first.head.endpoint.failingSince) {
    await tx
      .update(webhookEndpoints)
      .set({ failingSince: null })
      .where(eq(webhookEndpoints.id, first.head.endpoint.id));
  }
}

/**
 * A failed attempt: tried again at `retryAt`, or FAILED when it is null (the schedule ran out: the
 * queue moves on). The endpoint is failing since its first failure after a success; an endpoint
 * that fails again past `disableAfterMs` of that is disabled, with its `webhook.disabled` event,
 * in this transaction. Returns whether it disabled the endpoint.
 */
export async function recordFailed(
  tx: Executor,
  head: QueueHead,
  attempt: AttemptRecord,
  retryAt: Date | null,
  disableAfterMs: number,
): Promise<boolean> {
  await tx
    .update(webhookDeliveries)
    .set({
      status: retryAt ? 'PENDING' : 'FAILED',
      attempts: head.delivery.attempts + 1,
      ...(retryAt && { nextAttemptAt: retryAt }),
      lastAttemptAt: attempt.at,
      lastStatusCode: attempt.statusCode,
      lastError: attempt.error,
      lastResponse: attempt.response,
    })
    .where(isHeadAsRead(head.delivery));
  const failingSince = head.endpoint.failingSince;
  if (!failingSince) {
    await tx
      .update(webhookEndpoints)
      .set({ failingSince: attempt.at })
      .where(and(eq(webhookEndpoints.id, head.endpoint.id), sql`${webhookEndpoints.failingSince} is null`));
    return false;
  }
  if (attempt.at.getTime() - failingSince.getTime() <= disableAfterMs) return false;
  return disableFailingEndpoint(tx, head.endpoint.id, attempt.at);
}

/**
 * Disables the endpoint and records why. The row is locked only here, at the end of the
 * transaction, after the send: writers' outbox inserts take KEY SHARE on it (the foreign key), which
 * NO KEY UPDATE lets through, and a PATCH waits milliseconds, never a send.
 */
async function disableFailingEndpoint(tx: Executor, endpointId: string, at: Date): Promise<boolean> {
  const [before] = await tx
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)))
    .for('no key update');
  if (!before) return false;
  const [after] = await tx
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: 'FAILING', updatedAt: at })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning();
  if (!after) return false;
  // After the update: the endpoint, now disabled, does not receive its own event.
  await recordAuditEvent(tx, {
    tenantId: after.tenantId,
    action: 'webhook.disabled',
    target: { type: 'webhook', id: after.id },
    before: toWebhookDto(before),
    after: toWebhookDto(after),
    context: SYSTEM_AUDIT,
  });
  return true;
}

/**
 * The head's event is gone (purged past AUDIT_RETENTION_DAYS while the queue waited): there is
 * nothing left to send, so it is FAILED without an attempt, and the queue moves on.
 */
export async function recordEventGone(tx: Executor, head: QueueHead): Promise<void> {
  await tx
    .update(webhookDeliveries)
    .set({ status: 'FAILED', lastError: 'the event was purged (past AUDIT_RETENTION_DAYS)' })
    .where(isHeadAsRead(head.delivery));
}
