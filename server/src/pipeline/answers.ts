import type { Request } from 'express';
import type { Executor } from '../db/database.js';
import { fingerprintOf, replayedAnswer, type StoredAnswer } from '../idempotency/idempotent-request.js';

/** What a handler returns: the resource, not the envelope. */
export type HandlerResult = {
  status: number;
  data?: unknown;
  meta?: unknown;
  headers?: Record<string, string>;
};

/**
 * The one layer that wraps success bodies: handlers return `{ status, data, meta? }`, clients get
 * `{ success: true, data, meta? }`. Errors are wrapped by the error handler; the health probes and
 * the member export answer bare bodies and do not pass through here.
 */
export function envelopeOf(result: HandlerResult): StoredAnswer {
  const headers = result.headers ?? {};
  if (!('data' in result)) return { status: result.status, body: undefined, headers };
  const body =
    'meta' in result
      ? { success: true, data: result.data, meta: result.meta }
      : { success: true, data: result.data };
  return { status: result.status, body, headers };
}

/** What an Idempotency-Key compares: the method, the path and the body (or the route's own fingerprint). */
const fingerprintOfRequest = (req: Request, body: unknown) => fingerprintOf(req.method, req.path, body);

/**
 * The first answer to a POST whose Idempotency-Key was already answered, or undefined: the request
 * then runs. Looked at before any work begins, a transaction included.
 */
export function replayOf(req: Request, body: unknown = req.body): StoredAnswer | undefined {
  const { idempotency } = req.state;
  if (idempotency?.kind !== 'replay') return undefined;
  const answer = replayedAnswer(idempotency, fingerprintOfRequest(req, body));
  return { ...answer, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } };
}

/**
 * Runs the handler and envelopes its answer; with an Idempotency-Key, stores the answer through
 * `executor` (the change's own transaction when it has one, so that both commit together).
 */
export async function answered(
  req: Request,
  executor: Executor | undefined,
  handle: () => Promise<HandlerResult>,
  body: unknown = req.body,
): Promise<StoredAnswer> {
  const { idempotency } = req.state;
  const answer = envelopeOf(await handle());
  if (idempotency?.kind === 'run')
    await idempotency.complete(fingerprintOfRequest(req, body), answer, executor);
  return answer;
}

/**
 * A refused or failed request gives its key up before its error is answered, so that a retry runs
 * again at once rather than meeting its own key in flight. (An answer that never comes releases it
 * when the connection closes: steps/idempotency-key.ts.)
 */
export async function releasingKeyOnError<T>(req: Request, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const { idempotency } = req.state;
    if (idempotency?.kind === 'run') await idempotency.release().catch(() => {});
    throw error;
  }
}
