import type { ErrorEnvelope } from '@tms/contract';
import type { AppRoute, ClientInferResponseBody, ZodInferOrType, ZodInputOrType } from '@ts-rest/core';
import { ApiError, NetworkError } from './errors.js';
import type { ChangeOptions } from './options.js';
import { parseRetryAfter } from './retry.js';
import type { Answer, Call, Route } from './transport.js';

/** How a group of the SDK sends a call: the transport, with the route named for error messages. */
export type Send = <R extends Route>(call: Call<R>) => Promise<Answered>;

/** One page: `total` is there when asked for (`includeTotal: true`) on routes that count. */
export type Page<T> = { items: T[]; nextCursor: string | null; total?: number };

/**
 * A route's query as the caller writes it: every key the contract declares, optional, as sent
 * (`includeTotal: 'true'`) or as meant (`includeTotal: true`, `limit: 50`) when that is a string,
 * number or boolean.
 */
export type QueryOf<R extends AppRoute> = {
  [K in keyof ZodInputOrType<R['query']> | keyof ZodInferOrType<R['query']>]?:
    | (K extends keyof ZodInputOrType<R['query']> ? ZodInputOrType<R['query']>[K] : never)
    | (K extends keyof ZodInferOrType<R['query']>
        ? Extract<ZodInferOrType<R['query']>[K], string | number | boolean>
        : never);
};
export type ListQuery<R extends AppRoute> = Omit<QueryOf<R>, 'cursor'>;
export type BodyOf<R extends AppRoute, S extends keyof R['responses']> = ClientInferResponseBody<R, S>;

export type Answered = Answer & { what: string };

const isSuccess = (status: number) => status >= 200 && status < 300;

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
}

export const ifMatchHeaders = (options: ChangeOptions): Record<string, string> =>
  options.ifMatch === undefined ? {} : { 'if-match': `"${options.ifMatch}"` };

const unexpected = (res: Answered) =>
  new NetworkError(`${res.what}: unexpected ${res.status} answer without an error envelope`);

function apiError(res: Answered, body: ErrorEnvelope): ApiError {
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  return new ApiError(res.status, body.error, {
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
  });
}

/** Success: the envelope's `data`; error envelope: ApiError; anything else: NetworkError. */
export function unwrap<T>(res: Answered): T {
  if (isErrorEnvelope(res.body)) throw apiError(res, res.body);
  const body = res.body as { success?: unknown; data: T } | undefined;
  if (isSuccess(res.status) && body?.success === true) return body.data;
  throw unexpected(res);
}

export function unwrapPage<T>(res: Answered): Page<T> {
  const items = unwrap<T[]>(res);
  const { meta } = res.body as { meta: { nextCursor: string | null; total?: number } };
  return meta.total === undefined
    ? { items, nextCursor: meta.nextCursor }
    : { items, nextCursor: meta.nextCursor, total: meta.total };
}

export function unwrapNoContent(res: Answered): void {
  if (res.status !== 204) unwrap(res);
}

/** A probe's own body, on its success and on the statuses it declares (a 503 that says why). */
export function unwrapProbe<T>(res: Answered, statuses: readonly number[]): T {
  if (statuses.includes(res.status)) return res.body as T;
  if (isErrorEnvelope(res.body)) throw apiError(res, res.body);
  throw unexpected(res);
}

/** Follows `nextCursor` until the last page. */
export async function* allPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
