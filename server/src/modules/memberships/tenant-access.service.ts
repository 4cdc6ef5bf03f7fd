import { ROLE_LEVEL, TENANT_ADMIN_LEVEL } from '@tms/contract';
import type { Caller } from '../../auth/identity.service.js';
import type { Executor } from '../../db/database.js';
import { InsufficientRoleError, TenantAccessDeniedError, TenantNotFoundError } from '../../errors/index.js';
import { findMemberRole, findTenantAndRole } from './tenant-access.repository.js';

/** Above OWNER: a super administrator may do anything an OWNER may, in every tenant. */
export const SUPER_ADMIN_LEVEL = 100;

export type TenantAccess = {
  tenantId: string;
  /** The caller's effective level in this tenant. */
  level: number;
  isSuperAdmin: boolean;
};

/**
 * Who may manage a tenant's memberships: its OWNERs and ADMINs, and super administrators.
 * A non-member learns nothing about the tenant, not even whether it exists: both cases answer
 * TENANT_ACCESS_DENIED. Only a super administrator, who may see every tenant, is told
 * TENANT_NOT_FOUND.
 */
export async function authoriseTenantAdmin(
  db: Executor,
  caller: Caller,
  tenantId: string,
  options: { lockTenant?: boolean } = {},
): Promise<TenantAccess> {
  const lock = options.lockTenant ?? false;
  if (caller.isSuperAdmin || lock) {
    const { tenantExists, role } = await findTenantAndRole(db, tenantId, caller.userId, lock);
    if (caller.isSuperAdmin) {
      if (!tenantExists) throw new TenantNotFoundError(tenantId);
      return { tenantId, level: SUPER_ADMIN_LEVEL, isSuperAdmin: true };
    }
    return checkMember(tenantId, role);
  }
  // Read with the caller in this request; writes lock the tenant and read it again (above).
  const known = caller.tenantRole?.tenantId === tenantId ? caller.tenantRole.role : undefined;
  return checkMember(
    tenantId,
    known !== undefined ? known : await findMemberRole(db, tenantId, caller.userId),
  );
}

function checkMember(tenantId: string, role: keyof typeof ROLE_LEVEL | null): TenantAccess {
  if (role === null) throw new TenantAccessDeniedError();
  const level = ROLE_LEVEL[role];
  if (level < TENANT_ADMIN_LEVEL) throw new InsufficientRoleError();
  return { tenantId, level, isSuperAdmin: false };
}
