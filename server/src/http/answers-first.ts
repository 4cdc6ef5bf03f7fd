import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** Methods that change nothing: they start at once. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `app`, with a request that may change something started only once the I/O that came in
 * meanwhile has been read: the database's answers to the writes already under way go first.
 *
 * Those answers are what a tenant's writes wait on with its lock held: a write reads under the
 * lock, decides in this process, and sends its change with the COMMIT (docs/architecture.md), so
 * each of its round trips lasts as long as this event loop takes to get to the answer. Node
 * parses a new request in the loop's poll phase, among the answers that came in with it, and left
 * to itself would run all of its steps (token, rate limit, access, body) before the loop polls
 * again. Started from a second `setImmediate`, it runs after the next poll instead: one
 * `setImmediate` would run it in this turn's check phase, before that poll. A read holds no lock
 * and waits on no one: it starts at once, and pays nothing.
 */
export function answersFirst(
  app: RequestListener,
): RequestListener<typeof IncomingMessage, typeof ServerResponse> {
  return (req, res) => {
    if (READS.has(req.method ?? '')) app(req, res);
    else setImmediate(afterNextPoll, app, req, res);
  };
}

function afterNextPoll(app: RequestListener, req: IncomingMessage, res: ServerResponse): void {
  setImmediate(app, req, res);
}
