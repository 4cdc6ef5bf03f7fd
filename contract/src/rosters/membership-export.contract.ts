import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { ExportMembershipsQuerySchema } from '../memberships/memberships.schemas.js';
import { withErrorResponses } from '../route-errors.js';

const c = initContract();

const routes = c.router(
  {
    export: {
      method: 'GET',
      path: '/tenants/:tenantId/memberships/export',
      pathParams: TenantIdParams,
      query: ExportMembershipsQuerySchema,
      responses: {
        200: c.otherResponse({ contentType: 'text/csv', body: z.string() }),
      },
      summary: 'Every membership of the tenant as CSV or NDJSON, streamed (not enveloped)',
      description:
        'The columns an import reads, then `tenantMembershipId` and `status`; re-imported with ' +
        '`mode=sync` it changes nothing. Cells that a spreadsheet would run as a formula are ' +
        "prefixed with `'`. Errors before the first byte are enveloped as usual.",
    },
  },
  { baseHeaders: TenantHeaders, metadata: { access: 'tenantAdmin' } satisfies RouteMetadata },
);

/** Registered before the memberships' routes: `export` is not a membership id. */
export const membershipExportContract = withErrorResponses(routes);
