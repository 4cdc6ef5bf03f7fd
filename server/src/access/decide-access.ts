import { ROLE_LEVEL, type Role, type RouteAccess, routeMetadata, TENANT_ADMIN_LEVEL } from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';
import {
  InsufficientRoleError,
  SuperAdminRequiredError,
  TenantAccessDeniedError,
  TenantNotFoundError,
} from '../errors/index.js';

/** The access rule a route declares in the contract (`metadata.access`). */
export const accessRuleOf = (route: { metadata?: unknown } | undefined): RouteAccess =>
  route ? routeMetadata(route as AppRoute).access : 'authenticated';

/** The rules of tenant routes, and the lowest role each lets in. */
const TENANT_RULE_LEVEL: Partial<Record<RouteAccess, number>> = {
  tenantAdmin: TENANT_ADMIN_LEVEL,
  tenantTeacher: ROLE_LEVEL.TEACHER,
};

/** Whether a rule is a tenant route's: the URL names the tenant, and the caller's role there decides. */
export const isTenantRule = (rule: RouteAccess): boolean => TENANT_RULE_LEVEL[rule] !== undefined;

/** Above OWNER: a super administrator may do anything an OWNER may, in every tenant. */
export const SUPER_ADMIN_LEVEL = 100;

/** What a tenant route's handler may do in the URL's tenant. */
export type TenantAccess = {
  tenantId: string;
  /** The caller's effective level in this tenant. */
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
  const lowest = TENANT_RULE_LEVEL[rule];
  if (lowest === undefined || !facts.tenant) return undefined;
  const { tenantId, exists, role } = facts.tenant;
  if (facts.isSuperAdmin) {
    if (!exists) throw new TenantNotFoundError(tenantId);
    return { tenantId, level: SUPER_ADMIN_LEVEL, isSuperAdmin: true };
  }
  if (role === null) throw new TenantAccessDeniedError();
  const level = ROLE_LEVEL[role];
  if (level < lowest) throw new InsufficientRoleError();
  return { tenantId, level, isSuperAdmin: false };
}
