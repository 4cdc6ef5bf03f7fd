import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { IdempotencyHeaders, TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  CreateScimTokenBodySchema,
  NewScimTokenSchema,
  ScimTokenIdParams,
  ScimTokenSchema,
} from './scim-tokens.schemas.js';

const c = initContract();

const routes = c.router(
  {
    create: {
      method: 'POST',
      path: '/tenants/:tenantId/scim-tokens',
      pathParams: TenantIdParams,
      headers: TenantHeaders.merge(IdempotencyHeaders),
      body: CreateScimTokenBodySchema,
      responses: { 201: successEnvelope(NewScimTokenSchema) },
      summary: "Make a token for the tenant's directory (SCIM 2.0): shown once",
      description:
        "The token opens this tenant's `/scim/v2` routes and nothing else. Several may be live at once " +
        '(rotation): make the new one, switch the directory to it, then revoke the old one.',
    },
    list: {
      method: 'GET',
      path: '/tenants/:tenantId/scim-tokens',
      pathParams: TenantIdParams,
      responses: { 200: successEnvelope(z.array(ScimTokenSchema)) },
      summary: "The tenant's live SCIM tokens, without their secret",
    },
    revoke: {
      method: 'DELETE',
      path: '/tenants/:tenantId/scim-tokens/:scimTokenId',
      pathParams: ScimTokenIdParams,
      body: c.noBody(),
      responses: { 204: c.noBody() },
      metadata: { errors: ['SCIM_TOKEN_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'Revoke a SCIM token: the next request with it is refused',
    },
  },
  { baseHeaders: TenantHeaders, metadata: { access: 'tenantAdmin' } satisfies RouteMetadata },
);

/** A tenant's SCIM credentials: its OWNERs and ADMINs make and revoke them. */
export const scimTokensContract = withErrorResponses(routes);
