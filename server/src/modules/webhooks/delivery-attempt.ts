import type { WebhookPayload } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { AuditEventRow } from '../../db/schema.js';
import { countDeliveries, type DeliveryOutcome } from '../../metrics/webhook-metrics.js';
import { toAuditEventDto } from '../audit/audit-events.dto.js';
import type { ClaimedSession } from './delivery-claims.js';
import {
  type AttemptRecord,
  findQueueHeads,
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

/** How far one call of attemptHeads may go along the queue. */
export type RunLimits = {
  /** Deliveries read, so sent at most, in this run. */
  max: number;
  /** Asked before each send after the first: true ends the run there (a shutdown, the run's time). */
  enough?: () => boolean;
};

type Delivered = { head: QueueHead; attempt: AttemptRecord };

/**
 * Attempts at the head of the endpoint's queue, under its claim: reads the first `max` deliveries
 * (after the claim, so a head that another process just delivered is not sent again), sends each in
 * turn while it is due, and stops at the first that fails (it backs off and holds the rest back, so
 * order is kept). The 2xx answers are recorded together, in one statement, with the failure that
 * ended the run if there was one: a crash before that sends them again (at least once). Answers
 * what became of the last head attempted.
 *
 * The bodies are built from the events as read at the start of the run, which lasts a second at
 * most (the dispatcher's BATCH_MS): a user's erasure committed within it reaches the next run.
 */
export async function attemptHeads(
  session: ClaimedSession,
  endpointId: string,
  now: Date,
  settings: AttemptSettings,
  limits: RunLimits = { max: 1 },
): Promise<AttemptResult> {
  const heads = await findQueueHeads(session.read, endpointId, limits.max);
  const delivered: Delivered[] = [];
  let result: AttemptResult = { kind: 'idle' };
  let ending: Ending | undefined;
  // The run's clock: `now`, moved on by the time the run has taken (tests pass a `now` of their own).
  const started = performance.now();
  for (const [n, head] of heads.entries()) {
    const at = n === 0 ? now : new Date(now.getTime() + (performance.now() - started));
    if (n > 0 && limits.enough?.()) break;
    if (head.delivery.nextAttemptAt.getTime() > at.getTime()) break;
    const deliveryId = head.delivery.id;
    if (!head.event) {
      ending = { outcome: 'event_purged', write: (tx) => recordEventGone(tx, head) };
      result = { kind: 'event-gone', deliveryId };
      break;
    }
    const body = webhookBody(head.event);
    settings.onSend?.();
    const outcome = await sendWebhook(
      { url: head.endpoint.url, headers: signedHeaders(head, body, at, settings), body },
      settings.sender,
    );
    const attempt = { at, statusCode: outcome.statusCode, error: outcome.error, response: outcome.response };
    if (outcome.delivered) {
      delivered.push({ head, attempt });
      result = { kind: 'sent', deliveryId, outcome, disabled: false };
      continue;
    }
    const retryAt = nextAttemptAt(head.delivery.attempts + 1, at, settings.random);
    let disabled = false;
    ending = {
      outcome: retryAt ? 'retrying' : 'failed',
      write: async (tx) => {
        disabled = await recordFailed(tx, head, attempt, retryAt, DISABLE_AFTER_FAILING_MS);
      },
    };
    await record(session, delivered, ending);
    return { kind: 'sent', deliveryId, outcome, disabled };
  }
  if (delivered.length > 0 || ending) await record(session, delivered, ending);
  return result;
}

/** The attempt that ended a run other than by a 2xx, recorded with the run's 2xx answers. */
type Ending = { outcome: DeliveryOutcome; write: (tx: Executor) => Promise<unknown> };

async function record(
  session: ClaimedSession,
  delivered: readonly Delivered[],
  ending: Ending | undefined,
): Promise<void> {
  await session.write(async (tx) => {
    await recordDelivered(tx, delivered);
    await ending?.write(tx);
  });
  countDeliveries('delivered', delivered.length);
  if (ending) countDeliveries(ending.outcome);
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
