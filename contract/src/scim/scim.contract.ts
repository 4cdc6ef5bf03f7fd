import { initContract } from '@ts-rest/core';
import { TenantIdParams } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import {
  ScimDocumentSchema,
  ScimErrorSchema,
  ScimGroupSchema,
  ScimIdParams,
  ScimIfMatchHeaders,
  ScimListQuerySchema,
  ScimPatchBodySchema,
  ScimResourceBodySchema,
  ScimUserSchema,
  scimListResponse,
} from './scim.schemas.js';

const c = initContract();

const BASE = '/tenants/:tenantId/scim/v2';

/** Every SCIM route may answer these, in the SCIM Error schema (not the service's envelope). */
const errors = {
  400: ScimErrorSchema,
  401: ScimErrorSchema,
  404: ScimErrorSchema,
  409: ScimErrorSchema,
  412: ScimErrorSchema,
  413: ScimErrorSchema,
  415: ScimErrorSchema,
  429: ScimErrorSchema,
  500: ScimErrorSchema,
  503: ScimErrorSchema,
} as const;

const resourceRoutes = <
  N extends 'Users' | 'Groups',
  S extends typeof ScimUserSchema | typeof ScimGroupSchema,
>(
  name: N,
  schema: S,
) =>
  ({
    list: {
      method: 'GET',
      path: `${BASE}/${name}`,
      pathParams: TenantIdParams,
      query: ScimListQuerySchema,
      responses: { 200: scimListResponse(schema), ...errors },
      summary: `SCIM: list or filter ${name}`,
    },
    create: {
      method: 'POST',
      path: `${BASE}/${name}`,
      pathParams: TenantIdParams,
      body: ScimResourceBodySchema,
      responses: { 201: schema, ...errors },
      summary: `SCIM: create one of ${name}`,
    },
    get: {
      method: 'GET',
      path: `${BASE}/${name}/:id`,
      pathParams: ScimIdParams,
      query: ScimListQuerySchema.pick({ attributes: true, excludedAttributes: true }),
      responses: { 200: schema, ...errors },
      summary: `SCIM: read one of ${name}`,
    },
    replace: {
      method: 'PUT',
      path: `${BASE}/${name}/:id`,
      pathParams: ScimIdParams,
      headers: ScimIfMatchHeaders,
      body: ScimResourceBodySchema,
      responses: { 200: schema, ...errors },
      summary: `SCIM: replace one of ${name}`,
    },
    patch: {
      method: 'PATCH',
      path: `${BASE}/${name}/:id`,
      pathParams: ScimIdParams,
      headers: ScimIfMatchHeaders,
      body: ScimPatchBodySchema,
      responses: { 200: schema, 204: c.noBody(), ...errors },
      summary: `SCIM: change one of ${name} (PatchOp)`,
    },
    remove: {
      method: 'DELETE',
      path: `${BASE}/${name}/:id`,
      pathParams: ScimIdParams,
      headers: ScimIfMatchHeaders,
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errors },
      summary: `SCIM: delete one of ${name}`,
    },
  }) as const;

const users = resourceRoutes('Users', ScimUserSchema);
const groups = resourceRoutes('Groups', ScimGroupSchema);

const routes = c.router(
  {
    serviceProviderConfig: {
      method: 'GET',
      path: `${BASE}/ServiceProviderConfig`,
      pathParams: TenantIdParams,
      responses: { 200: ScimDocumentSchema, ...errors },
      summary: 'SCIM: what this service provider supports',
    },
    resourceTypes: {
      method: 'GET',
      path: `${BASE}/ResourceTypes`,
      pathParams: TenantIdParams,
      responses: { 200: ScimDocumentSchema, ...errors },
      summary: 'SCIM: the resource types (User, Group)',
    },
    schemas: {
      method: 'GET',
      path: `${BASE}/Schemas`,
      pathParams: TenantIdParams,
      responses: { 200: ScimDocumentSchema, ...errors },
      summary: 'SCIM: the schemas of User and Group, as served',
    },
    listUsers: users.list,
    createUser: users.create,
    getUser: users.get,
    replaceUser: users.replace,
    patchUser: users.patch,
    removeUser: users.remove,
    listGroups: groups.list,
    createGroup: groups.create,
    getGroup: groups.get,
    replaceGroup: groups.replace,
    patchGroup: groups.patch,
    removeGroup: groups.remove,
  },
  { metadata: { access: 'scimToken' } satisfies RouteMetadata },
);

/**
 * SCIM 2.0 (RFC 7644) for the tenant's directory: opened by a SCIM token of the URL's tenant
 * only, answered in SCIM's own shapes and media type (`application/scim+json`), errors in the SCIM
 * Error schema. Kept apart from `contract`: its callers, credential, media type and errors are
 * not the API's, and the SDK has no use for it (a directory is the client).
 */
export const scimContract = c.router({ scim: routes });
export type ScimContract = typeof scimContract;
