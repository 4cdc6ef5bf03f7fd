import { createServer, IncomingMessage, type RequestListener, type Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { answersFirst } from './answers-first.js';

/**
 * The HTTP server for the app, with requests and responses born as express's own objects.
 *
 * Left to itself, express receives node's plain objects and swaps their prototypes for its own on
 * every request (`Object.setPrototypeOf` in its init middleware). V8 then sees request and response
 * objects of shapes it has not optimised for, and every later step that touches them, node's own
 * header and stream code included, runs on slow paths: in profiles that was a large share of a
 * short request's CPU.
 *
 * So node builds them as instances of classes of its own request and response that carry express's
 * methods, and those classes' prototypes become the app's (`app.request`, `app.response`): express's
 * swap is then a no-op. Subclasses, not functions that call node's constructors on `this`: such a
 * function's objects are sized for its own empty body, and node's fields left every response in
 * V8's dictionary mode (test/unit/http-server.test.ts).
 */
export function createHttpServer(app: Express, options: { keepAliveTimeoutMs?: number } = {}): Server {
  class AppRequest extends IncomingMessage {}
  app.request = withMethodsOf(
    app.request,
    AppRequest.prototype,
    IncomingMessage.prototype,
  ) as Express['request'];
  class AppResponse extends ServerResponse {}
  app.response = withMethodsOf(
    app.response,
    AppResponse.prototype,
    ServerResponse.prototype,
  ) as Express['response'];
  const server = createServer(
    {
      IncomingMessage: AppRequest,
      ServerResponse: AppResponse,
      // Undefined: node's 5 s (HTTP_KEEP_ALIVE_TIMEOUT_MS, for a balancer that keeps its own longer).
      keepAliveTimeout: options.keepAliveTimeoutMs,
    },
    answersFirst(app as RequestListener),
  );
  // Left alone, node answers `Expect: 100-continue` with `100 Continue` before the app has seen the
  // request, inviting the body of a caller it is about to refuse. With this listener the request
  // goes through the app as any other, and only the JSON body middleware, once authentication and
  // access checks have passed, asks for the body (sendContinue).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req);
    server.emit('request', req, res);
  });
  return server;
}

/**
 * `target` given every property of `source`'s prototype chain down to `base` (express's methods,
 * and the app's own), the nearer ones last; returns `target`.
 */
function withMethodsOf<T extends object>(source: object, target: T, base: object): T {
  const levels: object[] = [];
  for (let level: object | null = source; level && level !== base; level = Object.getPrototypeOf(level)) {
    levels.unshift(level);
  }
  for (const level of levels) Object.defineProperties(target, Object.getOwnPropertyDescriptors(level));
  return target;
}

const awaitingContinue = new WeakSet<IncomingMessage>();

/** Tells a client that waits for `100 Continue` to send its body, if it waits and was not told yet. */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  if (awaitingContinue.delete(req)) res.writeContinue();
}
