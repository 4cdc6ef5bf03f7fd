import { isTenantRule, routeMetadata } from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';

export { accessRuleOf } from '../access/decide-access.js';

/**
 * The kinds of route, each with one list of steps (pipelines.ts) and one kind of handler context
 * (handlers.ts). A route's kind follows from its contract: its access rule, its method, and
 * whether it declares a streamed body.
 *
 * - public: no token (the health probes).
 * - read: a GET of any other rule. The caller is read in the statement that reads the data, and
 *   access decided on what came with it (access/read-as-caller.ts).
 * - write: a change that names no tenant's memberships (the caller's own answers under /me, the
 *   platform's routes): the caller is read, and access decided, before the body is read; the
 *   service owns its transaction.
 * - tenantWrite: a change under /tenants/:tenantId. Decided again, and made, in one transaction
 *   that holds the tenant's row lock (tenant-transaction.ts).
 * - upload: a change under a tenant whose body is a file, streamed to its handler (a roster import).
 * - scim: the tenant's directory (SCIM 2.0), with a SCIM token: its own budget, body and errors;
 *   a change runs in a transaction that locks the tenant (directory-transaction.ts).
 */
export type RouteKind = 'public' | 'read' | 'write' | 'tenantWrite' | 'upload' | 'scim';

export function kindOf(route: AppRoute): RouteKind {
  const metadata = routeMetadata(route);
  if (metadata.access === 'public') return 'public';
  if (metadata.access === 'scimToken') return 'scim';
  if (route.method === 'GET') return 'read';
  if (!isTenantRule(metadata.access)) return 'write';
  return metadata.body === 'stream' ? 'upload' : 'tenantWrite';
}
