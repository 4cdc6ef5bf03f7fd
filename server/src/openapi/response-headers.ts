import { routeMetadata } from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';
import { HEADER_EXAMPLES } from './examples.js';

export type Response = {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, Record<string, unknown>>;
};

/*
 * Response headers, declared once under components.headers and referenced where they are sent:
 * - x-request-id: on every answer (server/src/http/request-id.ts runs before any route);
 * - RateLimit-*: on every answer of a route that needs a token, when the server has a limiter
 *   (http/rate-limit.ts; it runs before the token is checked, so 401s carry them too);
 * - ETag: on the answers that carry one tenant or one membership (the routers' `withEtag`);
 * - Idempotent-Replayed: on a POST's 201 replayed for its Idempotency-Key (routing/enveloped.ts);
 * - Location: on a 202 (a roster import run in the background), where to follow it;
 * - Content-Disposition: on a download's 200 (the membership export), the file's name;
 * - WWW-Authenticate on 401, Retry-After on 429 and on the error envelope's 503 (http/error-handler.ts).
 * `Allow` goes with 405, which no operation here answers: a 405 is the answer to a method the
 * document does not list for the path.
 */
const HEADERS = {
  RequestId: {
    name: 'x-request-id',
    description:
      "The request's id: the caller's own `x-request-id` when it is 1 to 128 of `A-Z a-z 0-9 . _ : -`, " +
      'else a new UUID. Errors carry it as `error.requestId` too; the logs are searchable by it.',
    schema: { type: 'string' },
    example: HEADER_EXAMPLES.requestId,
  },
  ETag: {
    name: 'ETag',
    description:
      "The resource's `version`, as a strong entity tag: send it back in `If-Match` to change or " +
      'delete the resource only if nobody changed it since.',
    schema: { type: 'string' },
    example: HEADER_EXAMPLES.etag,
  },
  RateLimitLimit: {
    name: 'RateLimit-Limit',
    description:
      "The caller's budget of requests per window (`RATE_LIMIT_MAX`, 600 by default). Sent only when " +
      'the server runs with a rate limiter (not with `RATE_LIMIT_MAX=0`).',
    schema: { type: 'integer', minimum: 1 },
    example: 600,
  },
  RateLimitRemaining: {
    name: 'RateLimit-Remaining',
    description:
      'How many requests the caller has left in this window. Sent only when the server runs with a rate limiter.',
    schema: { type: 'integer', minimum: 0 },
    example: 597,
  },
  RateLimitReset: {
    name: 'RateLimit-Reset',
    description:
      'Seconds until the window ends and the budget is whole again. Sent only when the server runs with a rate limiter.',
    schema: { type: 'integer', minimum: 1 },
    example: 42,
  },
  RetryAfter: {
    name: 'Retry-After',
    description: 'Seconds to wait before trying again: the end of the rate-limit window on 429, 5 on 503.',
    schema: { type: 'integer', minimum: 1 },
    example: 42,
  },
  WWWAuthenticate: {
    name: 'WWW-Authenticate',
    description:
      'The Bearer challenge: `Bearer realm="tenant-membership-service"` without a token, ' +
      '`Bearer error="invalid_token"` with one that is not valid.',
    schema: { type: 'string' },
    example: 'Bearer error="invalid_token"',
  },
  Location: {
    name: 'Location',
    description:
      "Where a 202's work is followed: a roster import's `GET /tenants/{tenantId}/roster-imports/{importId}`.",
    schema: { type: 'string' },
    example:
      '/tenants/01955b12-0535-7604-963c-bac14605396b/roster-imports/0199043b-28e0-789d-8238-2e26595726e1',
  },
  ContentDisposition: {
    name: 'Content-Disposition',
    description:
      "`attachment`: a file to save, named by the tenant's slug (its id when the slug is not " +
      '`[a-z0-9-]`) and `-memberships.csv` or `-memberships.ndjson`, as `format` asked.',
    schema: { type: 'string' },
    example: 'attachment; filename="green-valley-memberships.csv"',
  },
  IdempotentReplayed: {
    name: 'Idempotent-Replayed',
    description:
      'Sent, as `true`, only when this answer is the stored answer of an earlier request with the ' +
      'same `Idempotency-Key` and body: the operation did not run again.',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
} as const;
type HeaderId = keyof typeof HEADERS;

export const headerComponents = Object.fromEntries(
  Object.entries(HEADERS).map(([id, { name: _name, ...header }]) => [id, header]),
);

/** The contract routes whose handlers answer the resource's ETag (`withEtag` in the routers). */
const ETAG_ROUTES = new Set([
  'tenants.create',
  'tenants.get',
  'tenants.update',
  'memberships.get',
  'memberships.create',
  'memberships.update',
  'memberships.suspend',
  'memberships.reactivate',
  'tenants.restore',
  'invitations.accept',
  'joinRequests.approve',
]);

/** The contract routes whose success is a file to save (membership-export.router.ts). */
const DOWNLOAD_ROUTES = new Set(['membershipExport.export']);

/** Which headers an answer of `route` with `status` carries; routeKey is the contract path. */
function responseHeaderIds(routeKey: string, route: AppRoute, status: number): HeaderId[] {
  const isPublic = routeMetadata(route).access === 'public';
  const ids: HeaderId[] = ['RequestId'];
  if (!isPublic) ids.push('RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset');
  if (status < 300 && ETAG_ROUTES.has(routeKey)) ids.push('ETag');
  // Any POST may carry an Idempotency-Key, and its replayed answer says so, whatever its status.
  if (status < 300 && route.method === 'POST' && !isPublic) ids.push('IdempotentReplayed');
  if (status === 202) ids.push('Location');
  if (status === 200 && DOWNLOAD_ROUTES.has(routeKey)) ids.push('ContentDisposition');
  if (status === 401) ids.push('WWWAuthenticate');
  if (status === 429 || (status === 503 && !isPublic)) ids.push('RetryAfter');
  return ids;
}

export const headersOf = (routeKey: string, route: AppRoute, status: number) =>
  Object.fromEntries(
    responseHeaderIds(routeKey, route, status).map((id) => [
      HEADERS[id].name,
      { $ref: `#/components/headers/${id}` },
    ]),
  );
