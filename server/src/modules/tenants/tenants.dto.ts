import type { Tenant } from '@tms/contract';
import type { TenantRow } from '../../db/schema.js';

export const toTenantDto = (row: TenantRow): Tenant => ({
  tenantId: row.id,
  slug: row.slug,
  name: row.name,
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
