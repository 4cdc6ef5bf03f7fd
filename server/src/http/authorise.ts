import type { RequestHandler } from 'express';
import type { Database } from '../db/database.js';
import { SuperAdminRequiredError } from '../errors/index.js';
import { authoriseTenantAdmin } from '../modules/memberships/tenant-access.service.js';
import { isUuid } from '../uuid.js';
import { accessOf } from './authenticate.js';
import { callerOf } from './request-context.js';

/**
 * Applies the access rule the contract declares for the route, before the request is validated,
 * so that a caller without rights learns nothing from validation messages.
 */
export function authorise(db: Database): RequestHandler {
  return (req, _res, next) => {
    const access = accessOf(req.tsRestRoute);
    if (access === 'superAdmin')
      return next(callerOf(req).isSuperAdmin ? undefined : new SuperAdminRequiredError());
    if (access !== 'tenantAdmin') return next();
    const tenantId = req.params.tenantId;
    // A malformed id names no tenant: let validation answer it.
    if (!tenantId || !isUuid(tenantId)) return next();
    authoriseTenantAdmin(db, callerOf(req), tenantId).then((tenantAccess) => {
      req.tenantAccess = tenantAccess;
      next();
    }, next);
  };
}
