import type { RequestHandler } from 'express';
import { TenantIdMismatchError } from '../../errors/index.js';

/**
 * The tenant always comes from the URL. A client that also sends x-tenant-id and disagrees with
 * the URL has a bug; acting on either value would hide it, so the request is refused.
 */
export const tenantHeaderMatchesUrl: RequestHandler = (req, _res, next) => {
  const header = req.headers['x-tenant-id'];
  const tenantId = req.params.tenantId;
  if (tenantId === undefined || header === undefined) return next();
  const value = Array.isArray(header) ? header : [header];
  next(
    value.every((v) => v.trim().toLowerCase() === tenantId.toLowerCase())
      ? undefined
      : new TenantIdMismatchError(),
  );
};
