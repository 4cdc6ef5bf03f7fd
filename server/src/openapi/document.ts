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
import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { REQUEST_EXAMPLES } from './examples.js';

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
const OPERATION_IDS: Record<string, string> = {
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

type Operation = {
  operationId?: string;
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
  requestBody?: {
    description?: string;
    required?: boolean;
    content: Record<string, Record<string, unknown>>;
  };
  [key: string]: unknown;
};

const errorRef = { $ref: '#/components/schemas/ErrorEnvelope' };

/** One response per error status, listing the codes the route can answer with that status. */
function errorResponses(route: AppRoute) {
  const byStatus = new Map<number, ResponseCode[]>();
  for (const code of errorCodesOf(route))
    byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: `Error envelope; \`error.code\` is one of: ${codes.join(', ')}`,
          content: {
            'application/json': {
              schema: errorRef,
              examples: Object.fromEntries(
                codes.map((code) => [
                  code,
                  { value: { success: false, error: { code, message: '…', requestId: '6f1c…' } } },
                ]),
              ),
            },
          },
          ...(status === 401
            ? { headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer' } } }
            : {}),
        },
      ]),
  );
}

function describeOperation(operation: Operation, route: AppRoute): Operation {
  const operationId = OPERATION_IDS[operation.operationId ?? ''] ?? operation.operationId;
  const isPublic = routeMetadata(route).access === 'public';
  const successes = Object.fromEntries(
    Object.entries(operation.responses)
      .filter(([status]) => Number(status) < 400 || (isPublic && status === '503'))
      .map(([status, response]) => [
        status,
        {
          ...response,
          description: response.description === status ? successText(status) : response.description,
        },
      ]),
  );
  const examples = operationId ? REQUEST_EXAMPLES[operationId] : undefined;
  const json = operation.requestBody?.content['application/json'];
  return {
    ...operation,
    operationId,
    tags: [TAGS.find((tag) => route.path.startsWith(tag.prefix))?.name ?? 'Other'],
    security: isPublic ? [] : [{ bearerAuth: [] }],
    ...(operation.requestBody && json
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { ...json, ...(examples ? { examples } : {}) } },
          },
        }
      : {}),
    responses: { ...successes, ...errorResponses(route) },
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
        description:
          'Who belongs to which tenant, and with what role. Every response but the health routes is ' +
          'wrapped in `{ success: true, data, meta? }` or `{ success: false, error: { code, message, details?, requestId } }`. ' +
          'Roles: OWNER 40, ADMIN 30, TEACHER 20, STUDENT 10.',
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
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
