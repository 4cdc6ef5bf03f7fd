import type { ServerResponse } from 'node:http';
import type { AppRoute, AppRouter, ServerInferResponses } from '@ts-rest/core';
import type { AppRouteImplementation, createExpressEndpoints } from '@ts-rest/express';

type RouterImplementation<T extends AppRouter> = Parameters<typeof createExpressEndpoints<T>>[1];

type SuccessStatus = 200 | 201 | 204;

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
type AnyInput = { req: Express.Request; res: ServerResponse };

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
      // A write under a tenant commits before its answer is sent (see request-transaction.ts).
      const { transaction } = input.req;
      const result = transaction
        ? await transaction.run(input.res, () => handler(input))
        : await handler(input);
      for (const [name, value] of Object.entries(result.headers ?? {})) input.res.setHeader(name, value);
      if (!('data' in result)) return { status: result.status, body: undefined };
      const body =
        'meta' in result
          ? { success: true, data: result.data, meta: result.meta }
          : { success: true, data: result.data };
      return { status: result.status, body };
    };
  }
  return implementation as RouterImplementation<T>;
}
