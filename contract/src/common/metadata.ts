import type { ResponseCode } from '../response-codes.js';

/**
 * Who may call a route, declared next to the route so that the server's guard and the OpenAPI
 * document read one source. (The authorisation tests pin each route's rule apart, and check this
 * declaration against it.)
 * - public: no token (health)
 * - authenticated: any valid token
 * - superAdmin: platform routes
 * - tenantAdmin: OWNER or ADMIN of the URL's tenant, or a super administrator
 * - tenantTeacher: TEACHER and above of the URL's tenant, or a super administrator
 * - tenantCaller: anyone signed in, with their role in the URL's tenant (none: level 0); the
 *   route's service decides on it and on the caller's own part in what it names (a student's own
 *   pairing code, a guardian's own link), and refuses anyone else as tenantAdmin would
 * - scimToken: a SCIM token of the URL's tenant (its directory), and nobody else: no user's token
 */
export type RouteAccess =
  | 'public'
  | 'authenticated'
  | 'superAdmin'
  | 'tenantAdmin'
  | 'tenantTeacher'
  | 'tenantCaller'
  | 'scimToken';

/** The rules of a tenant's routes (`/tenants/:tenantId/...`, but its directory's): decided on the caller's role there. */
export const TENANT_RULES = ['tenantAdmin', 'tenantTeacher', 'tenantCaller'] as const satisfies RouteAccess[];
export type TenantRule = (typeof TENANT_RULES)[number];
export const isTenantRule = (rule: RouteAccess): rule is TenantRule =>
  (TENANT_RULES as readonly string[]).includes(rule);

export type RouteMetadata = {
  access: RouteAccess;
  /**
   * Codes this route answers because of what it does: the one place they are declared. Those of
   * its access rule and shape are added by errorCodesOf; the route's error statuses, the OpenAPI
   * error lists and the client's code types are derived from both.
   */
  errors?: readonly ResponseCode[];
  /**
   * `stream`: the body is a file read as it arrives by the route itself (up to megabytes), not a
   * JSON document read whole before the handler runs.
   */
  body?: 'stream';
};
