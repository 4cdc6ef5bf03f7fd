import { extendApi } from '@anatine/zod-openapi';
import {
  CreateMembershipBodySchema,
  CreateTenantBodySchema,
  contract,
  ErrorEnvelopeSchema,
  errorCodesOf,
  FieldErrorSchema,
  HealthReportSchema,
  HTTP_STATUS,
  MembershipSchema,
  MeSchema,
  PageMetaSchema,
  ProbeSchema,
  type ResponseCode,
  ResponseCodeSchema,
  RoleSchema,
  routeMetadata,
  TenantSchema,
  UpdateMembershipBodySchema,
  UpdateTenantBodySchema,
  UserSummarySchema,
} from '@tms/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import {
  type Example,
  errorExample,
  HEADER_EXAMPLES,
  REQUEST_EXAMPLES,
  RESPONSE_EXAMPLES,
} from './examples.js';

/*
 * The OpenAPI document lives here, not in the contract, so that the contract (and the SDK built on
 * it) depends on zod and @ts-rest/core only: the OpenAPI tooling is for the server and the build.
 */

// Titled schemas become named components ($ref) instead of being inlined at every use.
const NAMED = {
  Tenant: TenantSchema,
  Membership: MembershipSchema,
  User: UserSummarySchema,
  Me: MeSchema,
  Role: RoleSchema,
  ErrorEnvelope: ErrorEnvelopeSchema,
  FieldError: FieldErrorSchema,
  ResponseCode: ResponseCodeSchema,
  PageMeta: PageMetaSchema,
  CreateTenantBody: CreateTenantBodySchema,
  UpdateTenantBody: UpdateTenantBodySchema,
  CreateMembershipBody: CreateMembershipBodySchema,
  UpdateMembershipBody: UpdateMembershipBodySchema,
  HealthReport: HealthReportSchema,
  Probe: ProbeSchema,
};
for (const [title, schema] of Object.entries(NAMED)) extendApi(schema, { title });

/** Stable, readable operation ids, by the contract's router path. */
export const OPERATION_IDS: Record<string, string> = {
  'tenants.create': 'createTenant',
  'tenants.list': 'listTenants',
  'tenants.get': 'getTenant',
  'tenants.update': 'updateTenant',
  'tenants.remove': 'deleteTenant',
  'memberships.list': 'listMemberships',
  'memberships.get': 'getMembership',
  'memberships.create': 'createMembership',
  'memberships.update': 'updateMembership',
  'memberships.remove': 'deleteMembership',
  'me.get': 'getMe',
  'health.live': 'getLiveness',
  'health.ready': 'getReadiness',
  'health.report': 'getHealth',
};

const TAGS = [
  { prefix: '/admin/tenants', name: 'Tenants', description: 'Platform routes: super administrators only' },
  {
    prefix: '/tenants/',
    name: 'Memberships',
    description: 'Tenant routes: OWNER or ADMIN of the tenant, or a super administrator',
  },
  { prefix: '/me', name: 'Me', description: 'The caller and its memberships' },
  { prefix: '/health', name: 'Health', description: 'Probes; answered without the envelope' },
];

type Parameter = { name: string; in: string; description?: string; schema?: { description?: string } };
type Response = {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, Record<string, unknown>>;
};
type Operation = {
  operationId?: string;
  parameters?: Parameter[];
  responses: Record<string, Response>;
  requestBody?: {
    description?: string;
    required?: boolean;
    content: Record<string, Record<string, unknown>>;
  };
  [key: string]: unknown;
};

/*
 * Response headers, declared once under components.headers and referenced where they are sent:
 * - x-request-id: on every answer (server/src/http/request-id.ts runs before any route);
 * - RateLimit-*: on every answer of a route that needs a token, when the server has a limiter
 *   (http/rate-limit.ts; it runs before the token is checked, so 401s carry them too);
 * - ETag: on the answers that carry one tenant or one membership (the routers' `withEtag`);
 * - Idempotent-Replayed: on a POST's 201 replayed for its Idempotency-Key (routing/enveloped.ts);
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

const headerComponents = Object.fromEntries(
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
]);

/** Which headers an answer of `route` with `status` carries; routeKey is the contract path. */
function responseHeaderIds(routeKey: string, route: AppRoute, status: number): HeaderId[] {
  const isPublic = routeMetadata(route).access === 'public';
  const ids: HeaderId[] = ['RequestId'];
  if (!isPublic) ids.push('RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset');
  if (status < 300 && ETAG_ROUTES.has(routeKey)) ids.push('ETag');
  if (status === 201 && route.method === 'POST' && !isPublic) ids.push('IdempotentReplayed');
  if (status === 401) ids.push('WWWAuthenticate');
  if (status === 429 || (status === 503 && !isPublic)) ids.push('RetryAfter');
  return ids;
}

const headersOf = (routeKey: string, route: AppRoute, status: number) =>
  Object.fromEntries(
    responseHeaderIds(routeKey, route, status).map((id) => [
      HEADERS[id].name,
      { $ref: `#/components/headers/${id}` },
    ]),
  );

const errorRef = { $ref: '#/components/schemas/ErrorEnvelope' };

/** Every route of a router, with its path in the contract (`memberships.update`). */
const routeEntries = (router: AppRouter, prefix = ''): [string, AppRoute][] =>
  Object.entries(router).flatMap(([key, entry]): [string, AppRoute][] =>
    isAppRoute(entry) ? [[`${prefix}${key}`, entry]] : routeEntries(entry, `${prefix}${key}.`),
  );

/** The codes some route answers (ROUTE_NOT_FOUND and METHOD_NOT_ALLOWED answer no route of the document). */
const answeredCodes = () => [...new Set(routeEntries(contract).flatMap(([, route]) => errorCodesOf(route)))];

/** The route's error codes, by HTTP status. */
function errorStatuses(route: AppRoute): Map<number, ResponseCode[]> {
  const byStatus = new Map<number, ResponseCode[]>();
  for (const code of errorCodesOf(route))
    byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

/** An error response; it depends on its codes only (their status sets its headers). */
function errorResponse(routeKey: string, route: AppRoute, status: number, codes: ResponseCode[]): Response {
  return {
    description: `Error envelope; \`error.code\` is one of: ${codes.join(', ')}`,
    headers: headersOf(routeKey, route, status),
    content: {
      'application/json': {
        schema: errorRef,
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

const pascal = (code: string) =>
  code.toLowerCase().replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase());

/**
 * Error responses with a single code that several routes answer alike (401, 429, 500, 503...):
 * declared once under components.responses, by the code's name, and referenced.
 */
function sharedErrorResponses(): Map<ResponseCode, { name: string; response: Response }> {
  const uses = new Map<ResponseCode, { count: number; response: Response }>();
  for (const [routeKey, route] of routeEntries(contract)) {
    for (const [status, codes] of errorStatuses(route)) {
      const [code] = codes;
      if (codes.length !== 1 || !code) continue;
      const seen = uses.get(code);
      uses.set(code, {
        count: (seen?.count ?? 0) + 1,
        response: errorResponse(routeKey, route, status, codes),
      });
    }
  }
  return new Map(
    [...uses.entries()]
      .filter(([, { count }]) => count > 1)
      .map(([code, { response }]) => [code, { name: pascal(code), response }]),
  );
}
const SHARED_ERRORS = sharedErrorResponses();

/** One response per error status, listing the codes the route can answer with that status. */
function errorResponses(routeKey: string, route: AppRoute): Record<string, Response | { $ref: string }> {
  return Object.fromEntries(
    [...errorStatuses(route)].map(([status, codes]) => {
      const shared = codes.length === 1 && codes[0] ? SHARED_ERRORS.get(codes[0]) : undefined;
      return [
        String(status),
        shared
          ? { $ref: `#/components/responses/${shared.name}` }
          : errorResponse(routeKey, route, status, codes),
      ];
    }),
  );
}

/**
 * Where ts-rest/open-api leaves a header parameter's description (in its schema, pitfall 11),
 * moved to the parameter, where Swagger UI and generators read it.
 */
function describedParameter(parameter: Parameter): Parameter {
  if (parameter.description || !parameter.schema?.description) return parameter;
  const { description, ...schema } = parameter.schema;
  return { ...parameter, description, schema };
}

const withExamples = (content: Record<string, unknown> | undefined, examples?: Record<string, Example>) =>
  content && examples ? { ...content, examples } : content;

function describeOperation(operation: Operation, route: AppRoute) {
  const routeKey = operation.operationId ?? '';
  const operationId = OPERATION_IDS[routeKey] ?? routeKey;
  const isPublic = routeMetadata(route).access === 'public';
  const responseExamples: Record<string, Record<string, Example>> = (
    RESPONSE_EXAMPLES as Record<string, Record<string, Record<string, Example>>>
  )[operationId] ?? {};
  const successes = Object.fromEntries(
    Object.entries(operation.responses)
      .filter(([status]) => Number(status) < 400 || (isPublic && status === '503'))
      .map(([status, response]): [string, Response] => {
        const json = withExamples(response.content?.['application/json'], responseExamples[status]);
        return [
          status,
          {
            description: response.description === status ? successText(status) : response.description,
            headers: headersOf(routeKey, route, Number(status)),
            ...(json ? { content: { 'application/json': json } } : {}),
          },
        ];
      }),
  );
  const requestExamples = (REQUEST_EXAMPLES as Record<string, Record<string, Example>>)[operationId];
  const json = operation.requestBody?.content['application/json'];
  return {
    ...operation,
    operationId,
    tags: [TAGS.find((tag) => route.path.startsWith(tag.prefix))?.name ?? 'Other'],
    security: isPublic ? [] : [{ bearerAuth: [] }],
    ...(operation.parameters ? { parameters: operation.parameters.map(describedParameter) } : {}),
    ...(operation.requestBody && json
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': withExamples(json, requestExamples) },
          },
        }
      : {}),
    responses: { ...successes, ...errorResponses(routeKey, route) },
  };
}

const successText = (status: string) =>
  ({ '200': 'OK', '201': 'Created', '204': 'No content', '503': 'Unavailable' })[status] ?? status;

/** Builds the OpenAPI document from the contract; `npm run openapi` commits its output. */
export function buildOpenApiDocument(version: string) {
  return generateOpenApi(
    contract,
    {
      info: {
        title: 'Tenant Membership Service',
        version,
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
        description: [
          'Who belongs to which tenant, and with what role. Every response but the health routes is ' +
            'wrapped in `{ success: true, data, meta? }` or `{ success: false, error: { code, message, details?, requestId } }`. ' +
            'Roles: OWNER 40, ADMIN 30, TEACHER 20, STUDENT 10.',
          'Every answer carries `x-request-id`; routes that need a token also carry `RateLimit-Limit`, ' +
            '`RateLimit-Remaining` and `RateLimit-Reset` when the server limits rates. A POST may carry an ' +
            '`Idempotency-Key`: a retry with the same key and body gets the first answer again.',
          'This document is served as JSON at `/openapi.json` (Swagger UI at `/docs` reads it from there).',
        ].join('\n\n'),
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        headers: headerComponents,
        responses: Object.fromEntries(
          [...SHARED_ERRORS.values()].map(({ name, response }) => [name, response]),
        ),
        // One example per error code, referenced by every response that can carry it.
        examples: Object.fromEntries(answeredCodes().map((code) => [code, errorExample(code)])),
      },
      tags: TAGS.map(({ name, description }) => ({ name, description })),
    },
    {
      setOperationId: 'concatenated-path',
      operationMapper: (operation, route) =>
        describeOperation(operation as Operation, route) as typeof operation,
    },
  );
}
