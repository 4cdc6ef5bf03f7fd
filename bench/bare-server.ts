/**
 * The floor: node:http, jose and one database driver answering the bench's requests with the
 * fewest round trips the service's rules allow (floor-handlers.ts). With BARE_FRAMEWORK=express (or
 * fastify) the same handlers sit behind that framework and its ts-rest adapter instead
 * (floor-express.ts, floor-fastify.ts), to measure what the framework alone costs. Verified tokens are cached as the service caches them. Same bodies, statuses
 * and ETags as the service for what the bench sends (server/test/postgres/bench-floor.test.ts
 * holds it to that); no framework, no ORM, no validation library, no security headers, no request
 * log, no rate limit. Not implemented (501): invitations by email, other orders than creation,
 * `includeTotal`, If-Match. A token whose subject has no user is a 401 here, where the service
 * would create the user.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { floorOnExpress } from './floor-express.js';
import { floorOnFastify } from './floor-fastify.js';
import {
  type Answer,
  callerOnly,
  create,
  envelopeOf,
  type FloorRequest,
  getOne,
  isUuid,
  list,
  me,
  parseJson,
  Refusal,
  refusalBody,
  remove,
  sql,
  subjectOf,
} from './floor-handlers.js';

const env = process.env;
const ROUTE = /^\/tenants\/([^/]+)\/memberships(?:\/([^/]+))?$/;

async function readText(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

async function route(req: IncomingMessage): Promise<Answer> {
  const url = new URL(req.url ?? '/', 'http://floor');
  const subject = await subjectOf(req.headers.authorization);
  if (url.pathname === '/me' && req.method === 'GET') return me(subject);
  const match = ROUTE.exec(url.pathname);
  if (!match?.[1]) throw new Refusal(404, 'ROUTE_NOT_FOUND');
  const r: FloorRequest = { subject, tenantId: match[1], membershipId: match[2], url };
  if (req.headers['if-match'] !== undefined) throw new Refusal(501, 'NOT_IMPLEMENTED');
  if (!isUuid(r.tenantId)) return callerOnly(r, new Refusal(400, 'VALIDATION_FAILED'));
  if (req.method === 'GET') return r.membershipId === undefined ? list(r) : getOne(r);
  if (req.method === 'POST' && r.membershipId === undefined) return create(r, parseJson(await readText(req)));
  if (req.method === 'DELETE' && r.membershipId !== undefined) return remove(r);
  throw new Refusal(405, 'METHOD_NOT_ALLOWED');
}

const JSON_TYPE = 'application/json; charset=utf-8';

function send(res: ServerResponse, answer: Answer): void {
  if (answer.body === undefined) {
    res.writeHead(answer.status).end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': JSON_TYPE };
  if (answer.etag) headers.etag = answer.etag;
  res.writeHead(answer.status, headers).end(JSON.stringify(envelopeOf(answer)));
}

const onNodeHttp = () =>
  createServer((req, res) => {
    route(req).then(
      (answer) => send(res, answer),
      (error: unknown) => {
        const refusal = error instanceof Refusal ? error : new Refusal(500, 'INTERNAL_ERROR');
        if (refusal.status === 500) console.error(error);
        res
          .writeHead(refusal.status, { 'content-type': JSON_TYPE })
          .end(JSON.stringify(refusalBody(refusal)));
      },
    );
  });

async function serverOf(framework: string | undefined): Promise<Server> {
  if (framework === 'express') return floorOnExpress();
  if (framework !== 'fastify') return onNodeHttp();
  const app = floorOnFastify();
  await app.ready();
  return app.server;
}

const server = await serverOf(env.BARE_FRAMEWORK);
server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => sql.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
