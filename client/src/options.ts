/** A bearer token, or a function returning a fresh one (so a frontend can refresh it). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

/** What `fetch` the SDK calls: the global one by default. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Retries with exponential backoff and full jitter, on 429, 503 and network failures, for the
 * requests that are safe to send twice (see the README's "Retries"). `false` turns them off.
 */
export type RetryOptions = {
  /** Tries in all, the first one included: 1 never retries. Default 3. */
  attempts?: number;
  /** The n-th retry waits a random time up to `baseDelayMs * 2 ** (n - 1)`. Default 300. */
  baseDelayMs?: number;
  /** The longest wait before a retry. A longer `Retry-After` is not waited for: the error is thrown. Default 10 000. */
  maxDelayMs?: number;
  /** How to wait: `setTimeout` by default, cut short by the call's signal. For tests and schedulers of your own. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

/** A request about to be sent: `headers` may be changed (e.g. a trace header added). */
export type RequestEvent = {
  method: string;
  url: string;
  headers: Headers;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
};

/** An answer, before the SDK reads it (also one that will be retried). */
export type ResponseEvent = {
  method: string;
  url: string;
  attempt: number;
  status: number;
  headers: Headers;
  /** The service's `x-request-id`: quote it when reporting a problem. */
  requestId: string | undefined;
};

export type RawClientOptions = {
  /** Where the service runs, e.g. `https://members.example.com`. */
  baseUrl: string;
  token?: TokenSource;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
};

export type ClientOptions = RawClientOptions & {
  /** A `fetch` of your own (a wrapped one, a test double, undici's); default `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Default `{ attempts: 3, baseDelayMs: 300, maxDelayMs: 10_000 }`; `false`: one try only. */
  retries?: RetryOptions | false;
  /** Called before every try; may add or change headers. */
  onRequest?: (request: RequestEvent) => void | Promise<void>;
  /** Called on every answer, retried ones included. */
  onResponse?: (response: ResponseEvent) => void | Promise<void>;
};

/** What every method takes last. */
export type CallOptions = {
  /** Cancels the call, retries and waits included: it rejects with a NetworkError whose `aborted` is true. */
  signal?: AbortSignal;
  /** Headers for this call only, over the client's. */
  headers?: Record<string, string>;
};

/** Creations (POST): retried only with an idempotency key, which the SDK makes unless given one. */
export type CreateOptions = CallOptions & {
  /** Your own key for this operation, e.g. one kept with a form so that a resubmission replays. */
  idempotencyKey?: string;
};

/** Changes: with `ifMatch` (the resource's `version`), refused with PRECONDITION_FAILED if it moved on. */
export type ChangeOptions = CallOptions & { ifMatch?: number };
