import type { WebhookPayload } from '@tms/contract';
import type { AuditEventRow } from '../../db/schema.js';
import { toAuditEventDto } from '../audit/audit-events.dto.js';
import type { ClaimedSession } from './delivery-claims.js';
import {
  findQueueHead,
  type QueueHead,
  recordDelivered,
  recordEventGone,
  recordFailed,
} from './delivery-queue.repository.js';
import { DISABLE_AFTER_FAILING_MS, nextAttemptAt } from './delivery-schedule.js';
import { type AttemptOutcome, type SenderOptions, sendWebhook } from './delivery-sender.js';
import { signatureHeaders } from './webhook-signing.js';

export type AttemptSettings = {
  sender: SenderOptions;
  /** Math.random's shape, for the retry schedule's jitter. */
  random?: () => number;
  /** The signature's timestamp: the wall clock, which receivers compare theirs to (±5 min). */
  signingClock?: () => Date;
  /** Told when the send starts: from then on, a shutdown waits for this attempt to be recorded. */
  onSend?: () => void;
};

/** What became of the head: nothing due, sent (with its outcome), or failed without a send. */
export type AttemptResult =
  | { kind: 'idle' }
  | { kind: 'sent'; deliveryId: string; outcome: AttemptOutcome; disabled: boolean }
  | { kind: 'event-gone'; deliveryId: string };

/**
 * The body, built now from the audit row rather than frozen at enqueue time: a user's erasure
 * rewrites the trail's rows, and must reach what is still queued too.
 */
export function webhookBody(event: AuditEventRow): string {
  const payload: WebhookPayload = {
    type: event.action,
    timestamp: event.occurredAt.toISOString(),
    data: toAuditEventDto(event),
  };
  return JSON.stringify(payload);
}

/**
 * One attempt at the head of the endpoint's queue, under its claim: read the head (after the
 * claim, so a head that another process just delivered is not sent again), send it if it is due
 * at `now`, record the outcome.
 */
export async function attemptHead(
  session: ClaimedSession,
  endpointId: string,
  now: Date,
  settings: AttemptSettings,
): Promise<AttemptResult> {
  const head = await findQueueHead(session.read, endpointId);
  if (!head || head.delivery.nextAttemptAt.getTime() > now.getTime()) return { kind: 'idle' };
  const deliveryId = head.delivery.id;
  if (!head.event) {
    await session.write((tx) => recordEventGone(tx, head));
    return { kind: 'event-gone', deliveryId };
  }
  const body = webhookBody(head.event);
  settings.onSend?.();
  const outcome = await sendWebhook(
    { url: head.endpoint.url, headers: signedHeaders(head, body, now, settings), body },
    settings.sender,
  );
  const attempt = {
    at: now,
    statusCode: outcome.statusCode,
    error: outcome.error,
    response: outcome.response,
  };
  if (outcome.delivered) {
    await session.write((tx) => recordDelivered(tx, head, attempt));
    return { kind: 'sent', deliveryId, outcome, disabled: false };
  }
  const retryAt = nextAttemptAt(head.delivery.attempts + 1, now, settings.random);
  const disabled = await session.write((tx) =>
    recordFailed(tx, head, attempt, retryAt, DISABLE_AFTER_FAILING_MS),
  );
  return { kind: 'sent', deliveryId, outcome, disabled };
}

/**
 * Signed at each attempt (the timestamp is the attempt's); during the day after a rotation, by
 * the previous secret too, so that a receiver still on it keeps verifying.
 */
function signedHeaders(head: QueueHead, body: string, now: Date, settings: AttemptSettings) {
  const { secret, previousSecret, previousSecretUntil } = head.endpoint;
  const previousValid =
    previousSecret && previousSecretUntil && previousSecretUntil.getTime() > now.getTime();
  const signedAt = settings.signingClock?.() ?? new Date();
  return signatureHeaders(head.delivery.id, signedAt, body, {
    current: secret,
    previous: previousValid ? previousSecret : null,
  });
}
