/**
 * The floor's handlers behind express and @ts-rest/express, as the service mounts its own: the
 * contract's routes, their zod validation of params, query, headers and body, `res.json` for the
 * answer. Nothing else of the service (no security headers, request id, log, rate limit, ORM): run
 * against the node:http floor (BENCH_FLOOR_FRAMEWORK=express), it measures what the framework alone
 * costs per request. Bad input is refused by the contract before access is decided, unlike the
 * service and the node:http floor; the bench sends none.
 */

import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { contract } from '@tms/contract';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express, { type NextFunction, type Request, type Response } from 'express';
import {
  type Answer,
  type Authenticated,
  create,
  floorRequest,
  getOne,
  list,
  me,
  Refusal,
  refusalBody,
  remove,
  routeResult,
  subjectOf,
} from './floor-handlers.js';

const answered = (res: Response, answer: Answer) =>
  routeResult(answer, (name, value) => res.setHeader(name, value));

export function floorOnExpress(): Server {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(express.json());
  const s = initServer();
  const router = s.router(contract.memberships, {
    get: async ({ params, req, res }) => answered(res, await getOne(floorRequest(req, params))),
    list: async ({ params, req, res }) => answered(res, await list(floorRequest(req, params))),
    create: async ({ params, body, req, res }) =>
      answered(res, await create(floorRequest(req, params), body)),
    remove: async ({ params, req, res }) => answered(res, await remove(floorRequest(req, params))),
    update: async () => {
      throw new Refusal(501, 'NOT_IMPLEMENTED');
    },
    suspend: async () => {
      throw new Refusal(501, 'NOT_IMPLEMENTED');
    },
    reactivate: async () => {
      throw new Refusal(501, 'NOT_IMPLEMENTED');
    },
  });
  const authenticate = (req: Request & Authenticated, _res: Response, next: NextFunction) => {
    subjectOf(req.headers.authorization).then((subject) => {
      req.subject = subject;
      next();
    }, next);
  };
  createExpressEndpoints(
    { memberships: contract.memberships, me: contract.me },
    {
      memberships: router,
      me: s.router(contract.me, {
        get: async ({ req, res }) => answered(res, await me((req as Authenticated).subject ?? '')),
      }),
    },
    app,
    {
      logInitialization: false,
      responseValidation: false,
      globalMiddleware: [authenticate] as never,
      requestValidationErrorHandler: (_error, _req, _res, next) =>
        next(new Refusal(400, 'VALIDATION_FAILED')),
    },
  );
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const refusal = error instanceof Refusal ? error : new Refusal(500, 'INTERNAL_ERROR');
    if (refusal.status === 500) console.error(error);
    res.status(refusal.status).json(refusalBody(refusal));
  });
  return serverFor(app);
}

/**
 * As the service serves its app (server/src/http/http-server.ts; copied, not imported, because
 * server/dist ships no type declarations): requests and responses born with express's prototypes,
 * so that V8 keeps them on its fast paths.
 */
function serverFor(app: express.Express): Server {
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage) {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage) => void).call(this, req);
  }
  AppResponse.prototype = app.response;
  return createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
    },
    app,
  );
}
