/**
 * The floor's handlers behind fastify and @ts-rest/fastify: the alternative to express that issue 12
 * asks to be measured before it is proposed. Same contract, same zod validation of params, query,
 * headers and body, same answers (server/test/postgres/bench-floor.test.ts), nothing else of the
 * service. @ts-rest/fastify 3.52 wants fastify 4, so that is the version measured. Bad input is
 * refused by the contract before access is decided, as on floor-express.ts; the bench sends none.
 */
import { contract } from '@tms/contract';
import { initServer } from '@ts-rest/fastify';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
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

const answered = (reply: FastifyReply, answer: Answer) =>
  routeResult(answer, (name, value) => reply.header(name, value));

/** A fastify app that has not started listening: the caller listens. */
export function floorOnFastify() {
  const app = Fastify({ logger: false });
  const s = initServer();
  const router = s.router(
    { memberships: contract.memberships, me: contract.me },
    {
      memberships: {
        get: async ({ params, request, reply }) =>
          answered(reply, await getOne(floorRequest(request as Authenticated, params))),
        list: async ({ params, request, reply }) =>
          answered(reply, await list(floorRequest(request as Authenticated, params))),
        create: async ({ params, body, request, reply }) =>
          answered(reply, await create(floorRequest(request as Authenticated, params), body)),
        remove: async ({ params, request, reply }) =>
          answered(reply, await remove(floorRequest(request as Authenticated, params))),
        update: async () => {
          throw new Refusal(501, 'NOT_IMPLEMENTED');
        },
        suspend: async () => {
          throw new Refusal(501, 'NOT_IMPLEMENTED');
        },
        reactivate: async () => {
          throw new Refusal(501, 'NOT_IMPLEMENTED');
        },
      },
      me: {
        get: async ({ request, reply }) =>
          answered(reply, await me((request as Authenticated).subject ?? '')),
      },
    },
  );
  app.addHook('onRequest', async (request: FastifyRequest) => {
    (request as unknown as Authenticated).subject = await subjectOf(request.headers.authorization);
  });
  s.registerRouter({ memberships: contract.memberships, me: contract.me }, router, app, {
    logInitialization: false,
    responseValidation: false,
    requestValidationErrorHandler: () => {
      throw new Refusal(400, 'VALIDATION_FAILED');
    },
  });
  // After registerRouter, which sets its own: the one that answers refusals in the envelope.
  app.setErrorHandler((error: unknown, _request, reply) => {
    const refusal = error instanceof Refusal ? error : new Refusal(500, 'INTERNAL_ERROR');
    if (refusal.status === 500) console.error(error);
    return reply.status(refusal.status).send(refusalBody(refusal));
  });
  return app;
}
