import type { ServerResponse } from 'node:http';
import type { AppRoute, AppRouter, ServerInferResponses } from '@ts-rest/core';
import type { AppRouteImplementation, createExpressEndpoints } from '@ts-rest/express';
import type { Request } from 'express';
import { fingerprintOf, replayedAnswer, type StoredAnswer } from '../idempotency/idempotent-request.js';

type RouterImplementation<T extends AppRouter> = Parameters<typeof createExpressEndpoints<T>>[1];

type SuccessStatus = 200 | 201 | 202 | 204;

/** What a handler returns: the resource, not the envelope. */
type Unwrapped<R> = R extends { status: infer S; body: infer B }
  ? B extends { success: true; data: infer D; meta: infer M }
    ? { status: S; data: D; meta: M; headers?: Record<string, string> }
    : B extends { success: true; data: infer D }
      ? { status: S; data: D; headers?: Record<string, string> }
      : { status: S; headers?: Record<string, string> }
  : never;

export type NormalisedHandler<T extends AppRoute> = (
  input: Parameters<AppRouteImplementation<T>>[0],
) => Promise<Unwrapped<ServerInferResponses<T, SuccessStatus>>>;

export type NormalisedRouter<T extends AppRouter> = {
  [K in keyof T]: T[K] extends AppRoute ? NormalisedHandler<T[K]> : never;
};

type AnyResult = { status: number; data?: unknown; meta?: unknown; headers?: Record<string, string> };
type AnyInput = { req: Request; res: ServerResponse };

/**
 * The one layer that wraps success bodies: handlers return `{ status, data, meta? }` and answer
 * `{ success: true, data, meta? }`. Errors are wrapped by the error handler. The health routes do
 * not pass through here: probes read their bare bodies.
 */
export function enveloped<T extends AppRouter>(
  _contract: T,
  handlers: NormalisedRouter<T>,
): RouterImplementation<T> {
  const implementation: Record<string, unknown> = {};
  for (const [key, handler] of Object.entries(
    handlers as unknown as Record<string, (input: AnyInput) => Promise<AnyResult>>,
  )) {
    implementation[key] = async (input: AnyInput) => {
      const answer = await answerOf(input, () => handler(input));
      for (const [name, value] of Object.entries(answer.headers)) input.res.setHeader(name, value);
      return { status: answer.status, body: answer.body };
    };
  }
  return implementation as RouterImplementation<T>;
}

function envelopeOf(result: AnyResult): StoredAnswer {
  const headers = result.headers ?? {};
  if (!('data' in result)) return { status: result.status, body: undefined, headers };
  const body =
    'meta' in result
      ? { success: true, data: result.data, meta: result.meta }
      : { success: true, data: result.data };
  return { status: result.status, body, headers };
}

/**
 * Runs the handler where the request says: in the transaction its access was decided in (a write
 * under a tenant, committed before the answer is sent), with its Idempotency-Key (the answer
 * stored in that same transaction), or instead of it (the first answer replayed).
 */
async function answerOf(input: AnyInput, handler: () => Promise<AnyResult>): Promise<StoredAnswer> {
  const { req } = input;
  const { transaction, idempotency } = req;
  if (idempotency?.kind === 'replay') {
    const answer = replayedAnswer(idempotency, fingerprintOf(req.method, req.path, req.body));
    return { ...answer, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } };
  }
  const run = async () => {
    const answer = envelopeOf(await handler());
    await idempotency?.complete(fingerprintOf(req.method, req.path, req.body), answer, transaction?.tx);
    return answer;
  };
  try {
    return transaction ? await transaction.run(input.res, run) : await run();
  } catch (error) {
    await idempotency?.release();
    throw error;
  }
}
