import { contract } from '@tms/contract';
import type { TenantRow } from '../../db/schema.js';
import { read, routes, write } from '../../pipeline/handlers.js';
import { etagOf } from '../shared/if-match.js';
import { restoreTenant } from './tenant-deletion.service.js';
import type { TenantRetention } from './tenant-retention.js';
import { toTenantDto } from './tenants.dto.js';
import { createTenant, getTenant, listTenantsPage, removeTenant, renameTenant } from './tenants.service.js';

/**
 * Platform routes, for super administrators: reads decide on the caller read with their data,
 * changes were decided before their body was read and own their transactions.
 */
export const tenantsRoutes = (retention: TenantRetention) => {
  const withEtag = (tenant: TenantRow) => ({
    status: 200 as const,
    data: toTenantDto(tenant, retention),
    headers: { ETag: etagOf(tenant.version) },
  });
  return routes(contract.tenants, {
    create: write(async ({ db, audit }, { body }) => ({
      ...withEtag(await createTenant(db, { audit, retention }, body)),
      status: 201,
    })),
    list: read(async ({ db, requester }, { query }) => {
      const page = await listTenantsPage(db, requester, query);
      return {
        status: 200,
        data: page.items.map((tenant) => toTenantDto(tenant, retention)),
        meta: { nextCursor: page.nextCursor },
      };
    }),
    get: read(async ({ db, requester }, { params }) =>
      withEtag(await getTenant(db, requester, params.tenantId)),
    ),
    update: write(async ({ db, audit }, { params, body, headers }) =>
      withEtag(await renameTenant(db, { audit, retention }, params.tenantId, body, headers['if-match'])),
    ),
    remove: write(async ({ db, audit }, { params, headers }) => {
      await removeTenant(db, { audit, retention }, params.tenantId, headers['if-match']);
      return { status: 204 };
    }),
    restore: write(async ({ db, audit }, { params }) =>
      withEtag(await restoreTenant(db, audit, params.tenantId, retention)),
    ),
  });
};
