import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * The HTTP server for the app, with requests and responses born as express's own objects.
 *
 * Left to itself, express receives node's plain objects and swaps their prototypes for its own on
 * every request (`Object.setPrototypeOf` in its init middleware). V8 then sees request and response
 * objects of shapes it has not optimised for, and every later step that touches them, node's own
 * header and stream code included, runs on slow paths: in profiles that was a large share of a
 * short request's CPU. Built with express's prototypes from the start, they keep one shape, and
 * express's swap becomes a no-op (the prototype is already the same).
 */
export function createHttpServer(app: Express): Server {
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    (
      ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void
    ).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  const server = createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
    },
    app,
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

const awaitingContinue = new WeakSet<IncomingMessage>();

/** Tells a client that waits for `100 Continue` to send its body, if it waits and was not told yet. */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  if (awaitingContinue.delete(req)) res.writeContinue();
}
