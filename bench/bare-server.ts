/**
 * The floor: node:http, jose and one database driver answering the bench's requests with the
 * fewest round trips the service's rules allow (floor-handlers.ts, floor-sql.ts), and writing what
 * the service writes for them (a write's audit event and webhook deliveries with its change).
 * Verified tokens are cached as the service caches them. Same statuses, bodies and ETags as the
 * service for what the bench sends, and the same rows written
 * (server/test/postgres/bench-floor.test.ts holds it to that); no framework, no ORM, no validation
 * library, no security headers, no request log, no rate limit. Anything the bench never sends is
 * 501: invitations by email, other orders than creation, filters by status, `includeTotal`,
 * If-Match, other routes, malformed requests. A token whose subject has no user is a 401 here,
 * where the service would create the user.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Answer,
  create,
  envelopeOf,
  getOne,
  isUuid,
  list,
  me,
  notImplemented,
  Refusal,
  refusalBody,
  remove,
  sql,
  subjectOf,
} from './floor-handlers.js';

const env = process.env;
const ROUTE = /^\/tenants\/([^/]+)\/memberships(?:\/([^/]+))?$/;
/** As the service's request-id.ts: a caller's id is kept when harmless, else one is made. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

async function readText(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

async function route(req: IncomingMessage): Promise<Answer> {
  const url = new URL(req.url ?? '/', 'http://floor');
  const subject = await subjectOf(req.headers.authorization);
  if (url.pathname === '/me' && req.method === 'GET') return me(subject);
  const [, tenantId, membershipId] = ROUTE.exec(url.pathname) ?? [];
  if (!isUuid(tenantId) || req.headers['if-match'] !== undefined) throw notImplemented();
  const scope = { subject, tenantId };
  if (membershipId === undefined) {
    if (req.method === 'GET') return list(scope, url.searchParams);
    if (req.method === 'POST') return create(scope, await readText(req), requestIdOf(req));
  } else if (isUuid(membershipId)) {
    if (req.method === 'GET') return getOne(scope, membershipId);
    if (req.method === 'DELETE') return remove(scope, membershipId, requestIdOf(req));
  }
  throw notImplemented();
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

const server = createServer((req, res) => {
  route(req).then(
    (answer) => send(res, answer),
    (error: unknown) => {
      const refusal = error instanceof Refusal ? error : new Refusal(500, 'INTERNAL_ERROR');
      if (refusal.status === 500) console.error(error);
      res.writeHead(refusal.status, { 'content-type': JSON_TYPE }).end(JSON.stringify(refusalBody(refusal)));
    },
  );
});
server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => sql.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
