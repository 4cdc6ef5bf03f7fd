import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { normalised } from '../../http/normalise-response.js';
import { toTenantDto } from './tenants.dto.js';
import { createTenant, getTenant, listTenantsPage, removeTenant, renameTenant } from './tenants.service.js';

/** Platform routes; the super-administrator rule is applied by the authorise middleware. */
export const tenantsRouter = (db: Database) =>
  normalised(contract.tenants, {
    create: async ({ body }) => ({ status: 201, data: toTenantDto(await createTenant(db, body)) }),
    list: async ({ query }) => {
      const page = await listTenantsPage(db, query);
      return { status: 200, data: page.items.map(toTenantDto), meta: { nextCursor: page.nextCursor } };
    },
    get: async ({ params }) => ({ status: 200, data: toTenantDto(await getTenant(db, params.tenantId)) }),
    update: async ({ params, body }) => ({
      status: 200,
      data: toTenantDto(await renameTenant(db, params.tenantId, body)),
    }),
    remove: async ({ params }) => {
      await removeTenant(db, params.tenantId);
      return { status: 204 };
    },
  });
