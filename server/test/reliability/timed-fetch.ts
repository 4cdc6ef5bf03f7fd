import { performance } from 'node:perf_hooks';

export type Answer = {
  method: string;
  path: string;
  /** 0: no HTTP answer at all (refused, reset, or our own timeout). */
  status: number;
  code?: string;
  body: unknown;
  /** Milliseconds since the performance time origin. */
  startedAt: number;
  endedAt: number;
  ms: number;
  error?: string;
};

export type Caller = (method: string, path: string, body?: unknown) => Promise<Answer>;

/**
 * A request that always settles: an answer, or status 0 with the reason. `timeoutMs` is the test's
 * own patience, well above anything the service should take, so that a hang shows as a long `ms`.
 */
export async function timedFetch(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const startedAt = performance.now();
  const done = (rest: Pick<Answer, 'status' | 'body'> & Partial<Answer>): Answer => {
    const endedAt = performance.now();
    return { method, path, startedAt, endedAt, ms: Math.round(endedAt - startedAt), ...rest };
  };
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text
    }
    const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
    return done({ status: res.status, code, body });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return done({ status: 0, body: undefined, error: cause ?? (error as Error).name });
  }
}

export const callerFor =
  (baseUrl: string, token: string, timeoutMs?: number): Caller =>
  (method, path, body) =>
    timedFetch(baseUrl, method, path, { token, body, timeoutMs });

/** The `data` of a success envelope, typed loosely: the assertions check its shape. */
export const dataOf = <T = Record<string, unknown>>(answer: Answer): T => (answer.body as { data: T }).data;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
