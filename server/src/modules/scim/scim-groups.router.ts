import { contract } from '@tms/contract';
import { read, routes, tenantWrite } from '../../pipeline/handlers.js';
import { listScimGroups, mapGroupRole } from './scim-group-roles.service.js';

/** The directory's groups as the tenant's admins see them, and the role each gives. */
export const scimGroupsRoutes = routes(contract.scimGroups, {
  list: read(async ({ db, requester }) => ({ status: 200, data: await listScimGroups(db, requester) })),
  setRole: tenantWrite(async (write, { params, body }) => ({
    status: 200,
    data: await mapGroupRole(write, params.groupId, body.role),
  })),
  unmapRole: tenantWrite(async (write, { params }) => ({
    status: 200,
    data: await mapGroupRole(write, params.groupId, null),
  })),
});
