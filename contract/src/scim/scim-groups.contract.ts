import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { TenantHeaders } from '../common/headers.js';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import {
  ScimGroupIdParams,
  ScimGroupSummarySchema,
  SetScimGroupRoleBodySchema,
} from './scim-groups.schemas.js';

const c = initContract();

const routes = c.router(
  {
    list: {
      method: 'GET',
      path: '/tenants/:tenantId/scim-groups',
      pathParams: TenantIdParams,
      responses: { 200: successEnvelope(z.array(ScimGroupSummarySchema)) },
      summary: "The directory's groups, with the role each gives",
    },
    setRole: {
      method: 'PUT',
      path: '/tenants/:tenantId/scim-groups/:groupId/role',
      pathParams: ScimGroupIdParams,
      body: SetScimGroupRoleBodySchema,
      responses: { 200: successEnvelope(ScimGroupSummarySchema) },
      metadata: { errors: ['SCIM_GROUP_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'Say which role membership of a group gives (ADMIN, TEACHER or STUDENT)',
      description:
        "A directory-managed member's role is the highest its mapped groups give (STUDENT when none); " +
        'the members of the group are given theirs at once. An OWNER keeps its role.',
    },
    unmapRole: {
      method: 'DELETE',
      path: '/tenants/:tenantId/scim-groups/:groupId/role',
      pathParams: ScimGroupIdParams,
      body: c.noBody(),
      responses: { 200: successEnvelope(ScimGroupSummarySchema) },
      metadata: { errors: ['SCIM_GROUP_NOT_FOUND'] } satisfies Partial<RouteMetadata>,
      summary: 'The group gives no role any more; its members get the role their other groups give',
    },
  },
  { baseHeaders: TenantHeaders, metadata: { access: 'tenantAdmin' } satisfies RouteMetadata },
);

/** Which role a directory's group gives: set by the tenant's OWNERs and ADMINs, never by the directory. */
export const scimGroupsContract = withErrorResponses(routes);
