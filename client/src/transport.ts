import { NetworkError } from './errors.js';
import type { ClientOptions, CreateOptions, FetchFunction } from './options.js';
import {
  delayBeforeRetry,
  mayRetry,
  parseRetryAfter,
  RETRY_STATUSES,
  randomKey,
  retryPolicy,
} from './retry.js';

export type Route = { readonly method: string; readonly path: string };

/** `'/tenants/:tenantId/memberships'` -> `{ tenantId: string }`. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;

export type Call<R extends Route> = {
  route: R;
  params: PathParams<R['path']>;
  query?: object;
  body?: unknown;
  /** Headers the SDK's own options make (If-Match), over the caller's. */
  headers?: Record<string, string>;
  options?: CreateOptions;
  /** Statuses that are the route's answers rather than failures: never retried (a probe's 503). */
  answers?: readonly number[];
};

/** An answer: `body` is the parsed JSON, the text of any other content, or undefined when empty. */
export type Answer = { status: number; body: unknown; headers: Headers };

export type Transport = <R extends Route>(call: Call<R>) => Promise<Answer>;

/** A path parameter as one URL segment: encoded, and never one that would change the path. */
function segment(name: string, value: unknown): string {
  // `.` and `..` (even percent-encoded) are dot segments that URL parsing resolves: refuse them.
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
    throw new TypeError(`${name} must be a non-empty id, got ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}

function queryValue(key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`query parameter ${key} cannot be sent as ${typeof value}`);
}

/** Undefined and null values are left out; an array repeats its key. */
export function queryString(query: object | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, queryValue(key, item));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export function pathOf(path: string, params: Record<string, unknown>): string {
  return path.replace(/:(\w+)/g, (_, name: string) => segment(name, params[name]));
}

async function readBody(res: Response): Promise<string> {
  return res.status === 204 || res.status === 304 ? '' : res.text();
}

function parseBody(text: string, res: Response, what: string): unknown {
  if (text === '') return undefined;
  if (!/\bjson\b/i.test(res.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new NetworkError(`${what} answered ${res.status} with invalid JSON`, { cause: error });
  }
}

/**
 * 429 and 503 say "not now"; so does a 409 IDEMPOTENCY_KEY_IN_FLIGHT, the answer to a retry whose
 * first try (its answer lost) is still running on the server.
 */
function isTransient(res: Response, text: string): boolean {
  if (RETRY_STATUSES.has(res.status)) return true;
  return res.status === 409 && errorCodeOf(text) === 'IDEMPOTENCY_KEY_IN_FLIGHT';
}

function errorCodeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code;
  } catch {
    return undefined;
  }
}

function aborted(what: string, signal: AbortSignal): NetworkError {
  return new NetworkError(`${what} was aborted`, { cause: signal.reason, aborted: true });
}

/**
 * Sends a call: builds its URL, headers and body, and tries again (the same request, the same
 * Idempotency-Key) while the answer says "not now" (isTransient) or there is none, if the request
 * is safe to send twice (mayRetry) and the policy allows. Throws NetworkError when no answer came; any answer is
 * returned for the caller to read.
 */
export function createTransport(options: ClientOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const policy = retryPolicy(options.retries);

  return async (call) => {
    const { route, options: callOptions = {} } = call;
    const { method } = route;
    const url = `${baseUrl}${pathOf(route.path, call.params)}${queryString(call.query)}`;
    const what = `${method} ${url}`;
    const signal = callOptions.signal;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    // One key for the whole call, so that every retry of it is the same operation to the server.
    const idempotencyKey =
      callOptions.idempotencyKey ?? (method === 'POST' && policy.attempts > 1 ? randomKey() : undefined);
    // Called, not a method of `options`: a browser's fetch refuses any `this` but the window.
    const send: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw aborted(what, signal);
      const headers = new Headers(options.headers);
      // Asked again on every try: a retry after a token refresh carries the new one.
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (body !== undefined) headers.set('content-type', 'application/json');
      for (const [name, value] of Object.entries(callOptions.headers ?? {})) headers.set(name, value);
      for (const [name, value] of Object.entries(call.headers ?? {})) headers.set(name, value);
      if (idempotencyKey !== undefined && (callOptions.idempotencyKey || !headers.has('idempotency-key'))) {
        headers.set('idempotency-key', idempotencyKey);
      }
      await options.onRequest?.({ method, url, headers, attempt });
      const retryable = attempt < policy.attempts && mayRetry(method, headers);

      let res: Response;
      let text: string;
      try {
        res = await send(url, { method, headers, body, signal });
        text = await readBody(res);
      } catch (error) {
        if (signal?.aborted) throw aborted(what, signal);
        const failure = new NetworkError(`${what} failed: ${(error as Error)?.message ?? error}`, {
          cause: error,
        });
        const delay = retryable ? delayBeforeRetry(policy, attempt, undefined) : undefined;
        if (delay === undefined) throw failure;
        await wait(policy.sleep, delay, signal, what);
        continue;
      }

      const requestId = res.headers.get('x-request-id') ?? undefined;
      await options.onResponse?.({
        method,
        url,
        attempt,
        status: res.status,
        headers: res.headers,
        requestId,
      });
      if (retryable && !call.answers?.includes(res.status) && isTransient(res, text)) {
        const delay = delayBeforeRetry(policy, attempt, parseRetryAfter(res.headers.get('retry-after')));
        if (delay !== undefined) {
          await wait(policy.sleep, delay, signal, what);
          continue;
        }
      }
      return { status: res.status, body: parseBody(text, res, what), headers: res.headers };
    }
  };
}

async function wait(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
  what: string,
): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw aborted(what, signal);
    throw error;
  }
  // A sleep of one's own may not listen to the signal.
  if (signal?.aborted) throw aborted(what, signal);
}
