import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import type { TenantRow } from '../../db/schema.js';
import { enveloped } from '../../routing/enveloped.js';
import { auditContextOf, requesterOf } from '../../routing/request-context.js';
import { etagOf } from '../shared/if-match.js';
import { restoreTenant } from './tenant-deletion.service.js';
import type { TenantRetention } from './tenant-retention.js';
import { toTenantDto } from './tenants.dto.js';
import { createTenant, getTenant, listTenantsPage, removeTenant, renameTenant } from './tenants.service.js';

/**
 * Platform routes, for super administrators: reads decide on the caller read with their data,
 * changes were decided by the authorise middleware.
 */
export const tenantsRouter = (db: Database, retention: TenantRetention) => {
  const withEtag = (tenant: TenantRow) => ({
    status: 200 as const,
    data: toTenantDto(tenant, retention),
    headers: { ETag: etagOf(tenant.version) },
  });
  const changeBy = (req: Parameters<typeof auditContextOf>[0]) => ({ audit: auditContextOf(req), retention });
  return enveloped(contract.tenants, {
    create: async ({ req, body }) => ({
      ...withEtag(await createTenant(db, changeBy(req), body)),
      status: 201,
    }),
    list: async ({ req, query }) => {
      const page = await listTenantsPage(db, requesterOf(req), query);
      return {
        status: 200,
        data: page.items.map((tenant) => toTenantDto(tenant, retention)),
        meta: { nextCursor: page.nextCursor },
      };
    },
    get: async ({ req, params }) => withEtag(await getTenant(db, requesterOf(req), params.tenantId)),
    update: async ({ req, params, body, headers }) =>
      withEtag(await renameTenant(db, changeBy(req), params.tenantId, body, headers['if-match'])),
    remove: async ({ req, params, headers }) => {
      await removeTenant(db, changeBy(req), params.tenantId, headers['if-match']);
      return { status: 204 };
    },
    restore: async ({ req, params }) =>
      withEtag(await restoreTenant(db, auditContextOf(req), params.tenantId, retention)),
  });
};
