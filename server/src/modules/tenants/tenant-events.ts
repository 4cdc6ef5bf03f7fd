import type { AuditAction } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { TenantRow } from '../../db/schema.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import type { TenantRetention } from './tenant-retention.js';
import { toTenantDto } from './tenants.dto.js';

/** A tenant's change, recorded in its transaction, with the tenant as the API showed it before and after. */
export function recordTenantEvent(
  tx: Executor,
  context: AuditContext,
  retention: TenantRetention,
  action: AuditAction,
  before: TenantRow | null,
  after: TenantRow | null,
): Promise<void> {
  const tenant = after ?? before;
  if (!tenant) throw new Error('a tenant event without a tenant');
  return recordAuditEvent(tx, {
    tenantId: tenant.id,
    action,
    target: { type: 'tenant', id: tenant.id },
    before: before && toTenantDto(before, retention),
    after: after && toTenantDto(after, retention),
    context,
  });
}
