import type { RetryOptions } from './options.js';

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRIES = { attempts: 3, baseDelayMs: 300, maxDelayMs: 10_000 } as const;

/** The statuses that say "not now" rather than "no": the request may be sent again. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULT_RETRIES, attempts: 1, sleep };
  return {
    attempts: Math.max(1, Math.floor(options?.attempts ?? DEFAULT_RETRIES.attempts)),
    baseDelayMs: Math.max(0, options?.baseDelayMs ?? DEFAULT_RETRIES.baseDelayMs),
    maxDelayMs: Math.max(0, options?.maxDelayMs ?? DEFAULT_RETRIES.maxDelayMs),
    sleep: options?.sleep ?? sleep,
  };
}

/**
 * Whether a request may be sent twice. GET, HEAD, PUT and DELETE are idempotent by HTTP's
 * definition; a POST is only with an Idempotency-Key (the service then replays the first answer);
 * a PATCH only with If-Match (a repeat after the first applied is refused, never applied twice).
 */
export function mayRetry(method: string, headers: Headers): boolean {
  switch (method) {
    case 'GET':
    case 'HEAD':
    case 'PUT':
    case 'DELETE':
      return true;
    case 'POST':
      return headers.has('idempotency-key');
    case 'PATCH':
      return headers.has('if-match');
    default:
      return false;
  }
}

/**
 * The wait before retry number `retry` (1 for the first), with jitter, so that many clients turned
 * away together do not come back together: with a `Retry-After`, at least that long and less than
 * twice it (a server shedding load says when its queue will have drained; callers that all came
 * back on that second would fill it again at once), never past maxDelayMs; without one, full
 * jitter (a random time up to the exponential ceiling). Undefined: do not retry, the server asks
 * for longer than the policy waits.
 */
export function delayBeforeRetry(policy: RetryPolicy, retry: number, retryAfterMs: number | undefined) {
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxDelayMs) return undefined;
    const spread = Math.min(retryAfterMs, policy.maxDelayMs - retryAfterMs);
    return retryAfterMs + Math.floor(Math.random() * spread);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(Math.random() * ceiling);
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined if absent or invalid. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A random UUID for an Idempotency-Key. `crypto.randomUUID` exists only in secure contexts (a page
 * served over plain http from another host has none), `getRandomValues` everywhere.
 */
export function randomKey(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 9562 variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
