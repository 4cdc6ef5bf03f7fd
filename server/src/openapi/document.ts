import { extendApi } from '@anatine/zod-openapi';
import {
  AuditEventSchema,
  CreateInvitationBodySchema,
  CreateMembershipBodySchema,
  CreateOwnershipTransferBodySchema,
  CreateTenantBodySchema,
  CreateWebhookBodySchema,
  contract,
  ErrorEnvelopeSchema,
  FieldErrorSchema,
  HealthReportSchema,
  InvitationSchema,
  MembershipSchema,
  MeSchema,
  MyInvitationSchema,
  OwnershipTransferSchema,
  PageMetaSchema,
  ProbeSchema,
  ResponseCodeSchema,
  RoleSchema,
  routeMetadata,
  SCIM_MEDIA_TYPE,
  SuspendMembershipBodySchema,
  scimContract,
  TenantSchema,
  UpdateMembershipBodySchema,
  UpdateTenantBodySchema,
  UpdateWebhookBodySchema,
  UserSummarySchema,
  WebhookDeliverySchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { answeredCodes, errorResponses, SHARED_ERRORS } from './error-responses.js';
import { type Example, errorExample } from './examples.js';
import {
  REQUEST_EXAMPLES_BY_OPERATION,
  RESPONSE_EXAMPLES_BY_OPERATION,
  RESPONSE_MEDIA_BY_OPERATION,
} from './examples-by-operation.js';
import { fixNullableSchemas } from './nullable-schemas.js';
import { OPERATION_IDS } from './operation-ids.js';
import { repeatableQueryParameter } from './query-parameters.js';
import { headerComponents, headersOf, type Response } from './response-headers.js';
import { ROSTER_REQUEST_MEDIA } from './roster-examples.js';
import { SCIM, TAGS } from './tags.js';

/*
 * The OpenAPI document lives here, not in the contract, so that the contract (and the SDK built on
 * it) depends on zod and @ts-rest/core only: the OpenAPI tooling is for the server and the build.
 */

// Titled schemas become named components ($ref) instead of being inlined at every use.
const NAMED = {
  Tenant: TenantSchema,
  Membership: MembershipSchema,
  Invitation: InvitationSchema,
  MyInvitation: MyInvitationSchema,
  OwnershipTransfer: OwnershipTransferSchema,
  AuditEvent: AuditEventSchema,
  CreateInvitationBody: CreateInvitationBodySchema,
  CreateOwnershipTransferBody: CreateOwnershipTransferBodySchema,
  SuspendMembershipBody: SuspendMembershipBodySchema,
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
  Webhook: WebhookSchema,
  WebhookWithSecret: WebhookWithSecretSchema,
  WebhookDelivery: WebhookDeliverySchema,
  CreateWebhookBody: CreateWebhookBodySchema,
  UpdateWebhookBody: UpdateWebhookBodySchema,
};
for (const [title, schema] of Object.entries(NAMED)) extendApi(schema, { title });

/** The operation ids (operation-ids.ts), where readers of the document have always found them. */
/** The examples by operation (examples-by-operation.ts), beside the document they go into. */
export { OPERATION_IDS, REQUEST_EXAMPLES_BY_OPERATION, RESPONSE_EXAMPLES_BY_OPERATION };

type Parameter = {
  name: string;
  in: string;
  description?: string;
  schema?: { description?: string; [key: string]: unknown };
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

/**
 * Where ts-rest/open-api leaves a header parameter's description (in its schema, pitfall 11),
 * moved to the parameter, where Swagger UI and generators read it.
 */
function describedParameter(parameter: Parameter): Parameter {
  if (parameter.description || !parameter.schema?.description) return parameter;
  const { description, ...schema } = parameter.schema;
  return { ...parameter, description, schema };
}

/** For the actions that take no options (resend, accept, restore, ...). */
const ACTION_BODY_EXAMPLES: Record<string, Example> = {
  none: { summary: 'No options: send no body, or `{}`', value: {} },
};

const withExamples = (content: Record<string, unknown> | undefined, examples?: Record<string, Example>) =>
  content && examples ? { ...content, examples } : content;

/**
 * A SCIM route (RFC 7644): its own media type both ways, its own credential (a SCIM token), and
 * its errors in the SCIM Error schema, as the contract declares them: none of the API's envelope.
 */
function describeScimOperation(operation: Operation) {
  const routeKey = operation.operationId ?? '';
  const asScim = (content: Record<string, Record<string, unknown>> | undefined) =>
    content?.['application/json'] ? { [SCIM_MEDIA_TYPE]: content['application/json'] } : undefined;
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => {
      const content = asScim(response.content as Record<string, Record<string, unknown>> | undefined);
      return [
        status,
        {
          description:
            response.description === status ? (successText(status) ?? status) : response.description,
          ...(content ? { content } : {}),
        },
      ];
    }),
  );
  const body = asScim(operation.requestBody?.content);
  return {
    ...operation,
    operationId: OPERATION_IDS[routeKey] ?? routeKey,
    tags: [SCIM.name],
    security: [{ scimToken: [] }],
    ...(operation.parameters ? { parameters: operation.parameters.map(describedParameter) } : {}),
    ...(operation.requestBody && body ? { requestBody: { required: true, content: body } } : {}),
    responses,
  };
}

function describeOperation(operation: Operation, route: AppRoute) {
  if (routeMetadata(route).access === 'scimToken') return describeScimOperation(operation);
  const routeKey = operation.operationId ?? '';
  const operationId = OPERATION_IDS[routeKey] ?? routeKey;
  const isPublic = routeMetadata(route).access === 'public';
  const responseExamples = RESPONSE_EXAMPLES_BY_OPERATION[operationId] ?? {};
  const responseMedia = RESPONSE_MEDIA_BY_OPERATION[operationId] ?? {};
  const successes = Object.fromEntries(
    Object.entries(operation.responses)
      .filter(([status]) => Number(status) < 400 || (isPublic && status === '503'))
      .map(([status, response]): [string, Response] => {
        const json = withExamples(response.content?.['application/json'], responseExamples[status]);
        // A download (text/csv, application/x-ndjson) is not JSON: its media types come from the examples' files.
        const other = responseMedia[status];
        const content = { ...other?.content, ...(json ? { 'application/json': json } : {}) };
        return [
          status,
          {
            description:
              other?.description ??
              (response.description === status ? successText(status) : response.description),
            headers: headersOf(routeKey, route, Number(status)),
            ...(Object.keys(content).length > 0 ? { content } : {}),
          },
        ];
      }),
  );
  const bodyIsOptional = Boolean((route as { body?: { isOptional?: () => boolean } }).body?.isOptional?.());
  const requestExamples =
    REQUEST_EXAMPLES_BY_OPERATION[operationId] ?? (bodyIsOptional ? ACTION_BODY_EXAMPLES : undefined);
  const json = operation.requestBody?.content['application/json'];
  return {
    ...operation,
    operationId,
    tags: [TAGS.find((tag) => routePath(route).startsWith(tag.prefix))?.name ?? 'Other'],
    security: isPublic ? [] : [{ bearerAuth: [] }],
    ...(operation.parameters
      ? { parameters: operation.parameters.map(describedParameter).map(repeatableQueryParameter) }
      : {}),
    ...(operation.requestBody && json
      ? {
          requestBody: {
            // An action's body ({} or none) is optional; a resource's is not.
            required: !bodyIsOptional,
            // Other media types first: a route that takes a file (text/csv) takes JSON as the alternative.
            content: {
              ...ROSTER_REQUEST_MEDIA[operationId],
              'application/json': withExamples(json, requestExamples),
            },
          },
        }
      : {}),
    responses: { ...successes, ...errorResponses(routeKey, route) },
  };
}

/** The route's path as OpenAPI writes it (`{tenantId}`), for matching tag prefixes. */
const routePath = (route: AppRoute) => route.path.replace(/:(\w+)/g, '{$1}');

const successText = (status: string) =>
  ({ '200': 'OK', '201': 'Created', '204': 'No content', '503': 'Unavailable' })[status] ?? status;

/** Builds the OpenAPI document from the contract; `npm run openapi` commits its output. */
export function buildOpenApiDocument(version: string) {
  const document = generateOpenApi(
    { ...contract, scim: scimContract.scim },
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
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          scimToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              "A tenant's SCIM token (POST /tenants/{tenantId}/scim-tokens): opens that tenant's /scim/v2 routes only",
          },
        },
        headers: headerComponents,
        responses: Object.fromEntries(
          [...SHARED_ERRORS.values()].map(({ name, response }) => [name, response]),
        ),
        // One example per error code, referenced by every response that can carry it.
        examples: Object.fromEntries(answeredCodes().map((code) => [code, errorExample(code)])),
      },
      tags: [...new Map(TAGS.map(({ name, description }) => [name, { name, description }])).values()],
    },
    {
      setOperationId: 'concatenated-path',
      operationMapper: (operation, route) =>
        describeOperation(operation as Operation, route) as typeof operation,
    },
  );
  return fixNullableSchemas(document);
}
