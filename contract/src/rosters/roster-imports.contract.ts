import { initContract } from '@ts-rest/core';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  ROSTER_BYTES_MAX,
  ROSTER_ROWS_IN_REQUEST_MAX,
  ROSTER_ROWS_MAX,
  RosterImportBodySchema,
  RosterImportIdParams,
  RosterImportQuerySchema,
  RosterImportSchema,
} from './roster-imports.schemas.js';

const c = initContract();

const routes = c.router(
  {
    create: {
      method: 'POST',
      path: '/tenants/:tenantId/roster-imports',
      pathParams: TenantIdParams,
      headers: TenantHeaders.merge(IdempotencyHeaders),
      query: RosterImportQuerySchema,
      body: RosterImportBodySchema,
      responses: {
        200: successEnvelope(RosterImportSchema),
        202: successEnvelope(RosterImportSchema),
      },
      metadata: {
        errors: ['ROSTER_INVALID', 'ROSTER_REMOVAL_LIMIT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
        body: 'stream',
      } satisfies Partial<RouteMetadata>,
      summary: 'Import members from a CSV file (or JSON rows): add, or sync; with a dry run',
      description:
        '`text/csv` (UTF-8, with or without BOM, comma or semicolon) or `application/json` ' +
        `\`{ rows }\`; at most ${ROSTER_ROWS_MAX} rows and ${ROSTER_BYTES_MAX / 1024 / 1024} MiB. ` +
        `Up to ${ROSTER_ROWS_IN_REQUEST_MAX} rows are done in the request (200); a larger file answers ` +
        '202 with a `Location` to poll. Applying is all or nothing: one invalid row and nothing is ' +
        'applied (409 ROSTER_INVALID, each error with its row as numbered in the file). A dry run ' +
        'changes nothing and answers 200 with what applying would do, `failure` included.',
    },
    get: {
      method: 'GET',
      path: '/tenants/:tenantId/roster-imports/:importId',
      pathParams: RosterImportIdParams,
      responses: { 200: successEnvelope(RosterImportSchema) },
      metadata: { errors: ['ROSTER_IMPORT_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'One import: its status, progress, summary and errors',
    },
  },
  { baseHeaders: TenantHeaders, metadata: { access: 'tenantAdmin' } satisfies RouteMetadata },
);

/** Tenant routes: OWNER or ADMIN of the URL's tenant, or a super administrator. */
export const rosterImportsContract = withErrorResponses(routes);
