import type { Tenant } from '@tms/contract';
import type { TenantRow } from '../../db/schema.js';
import { purgeAfterOf, type TenantRetention } from './tenant-retention.js';

export const toTenantDto = (row: TenantRow, retention: TenantRetention): Tenant => ({
  tenantId: row.id,
  slug: row.slug,
  name: row.name,
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  deletedAt: row.deletedAt?.toISOString() ?? null,
  purgeAfter: row.deletedAt ? purgeAfterOf(row.deletedAt, retention).toISOString() : null,
});
