import type { FetchFunction } from '../src/options.js';

export type Sent = { url: string; method: string; headers: Headers; body: string | undefined };

/** An answer to give: a Response (made anew for each request), or an error to throw. */
export type Reply = () => Response | Error;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => {
  return () =>
    new Response(status === 204 ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    });
};

export const ok = (data: unknown, headers: Record<string, string> = {}) =>
  json(200, { success: true, data }, headers);

export const refused = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { success: false, error: { code, message: `refused: ${code}`, requestId: 'req-1' } }, headers);

export const offline: Reply = () => new TypeError('fetch failed');

/** A fetch that records each request and answers with the replies in turn (the last one repeats). */
export function fakeFetch(...replies: Reply[]) {
  const sent: Sent[] = [];
  const fetch: FetchFunction = async (url, init) => {
    sent.push({
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    });
    if (init.signal?.aborted) throw init.signal.reason;
    const reply = replies[Math.min(sent.length, replies.length) - 1];
    const answer = reply ? reply() : new Error('no reply');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, sent };
}

/** A sleep that does not wait, and remembers how long it was asked to. */
export function recordedSleep() {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
  };
  return { sleep, waits };
}
