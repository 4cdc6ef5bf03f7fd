import {
  isTenantRule,
  ROLE_LEVEL,
  type Role,
  type RouteAccess,
  routeMetadata,
  TENANT_ADMIN_LEVEL,
  type TenantRule,
} from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';
import {
  InsufficientRoleError,
  SuperAdminRequiredError,
  TenantAccessDeniedError,
  TenantNotFoundError,
} from '../errors/index.js';
import { NO_ROLE_LEVEL } from '../rules/policy.js';

/** The access rule a route declares in the contract (`metadata.access`). */
export const accessRuleOf = (route: { metadata?: unknown } | undefined): RouteAccess =>
  route ? routeMetadata(route as AppRoute).access : 'authenticated';

/** Above OWNER: a super administrator may do anything an OWNER may, in every tenant. */
export const SUPER_ADMIN_LEVEL = 100;

/**
 * The lowest level each tenant rule lets through. tenantCaller lets everyone through, a
 * non-member at level 0: its service decides on the caller's own part in what the route names.
 */
export const RULE_LEVEL = {
  tenantAdmin: TENANT_ADMIN_LEVEL,
  tenantTeacher: ROLE_LEVEL.TEACHER,
  tenantCaller: NO_ROLE_LEVEL,
} as const satisfies Record<TenantRule, number>;

/** What a tenant route's handler may do in the URL's tenant. */
export type TenantAccess = {
  tenantId: string;
  /** The caller's effective level in this tenant (NO_ROLE_LEVEL: no ACTIVE membership). */
  level: number;
  isSuperAdmin: boolean;
};

/** What the database says about the caller and, on tenant routes, the URL's tenant. */
export type AccessFacts = {
  isSuperAdmin: boolean;
  tenant?: { tenantId: string; exists: boolean; role: Role | null };
};

/**
 * The one access decision of a request, from the rule its route declares in the contract.
 *
 * Tenant routes are for the tenant's OWNERs and ADMINs (and, on `tenantTeacher` routes, its
 * TEACHERs), and super administrators. A non-member
 * learns nothing about the tenant, not even whether it exists: both are TENANT_ACCESS_DENIED. Only
 * a super administrator, who may see every tenant, is told TENANT_NOT_FOUND.
 */
export function decideAccess(rule: RouteAccess, facts: AccessFacts): TenantAccess | undefined {
  if (rule === 'superAdmin' && !facts.isSuperAdmin) throw new SuperAdminRequiredError();
  if (!isTenantRule(rule) || !facts.tenant) return undefined;
  const { tenantId, exists, role } = facts.tenant;
  if (facts.isSuperAdmin) {
    if (!exists) throw new TenantNotFoundError(tenantId);
    return { tenantId, level: SUPER_ADMIN_LEVEL, isSuperAdmin: true };
  }
  if (role === null) {
    if (rule === 'tenantCaller' && exists) return { tenantId, level: NO_ROLE_LEVEL, isSuperAdmin: false };
    throw new TenantAccessDeniedError();
  }
  const level = ROLE_LEVEL[role];
  if (level < RULE_LEVEL[rule]) throw new InsufficientRoleError(insufficientMessage(rule));
  return { tenantId, level, isSuperAdmin: false };
}

const insufficientMessage = (rule: TenantRule): string | undefined =>
  rule === 'tenantTeacher' ? 'Only TEACHER members and above may use this route' : undefined;
