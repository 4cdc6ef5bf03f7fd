import type { RequestHandler } from 'express';
import { lockTenantForWrite } from '../access/access.repository.js';
import { accessRuleOf, decideAccess } from '../access/decide-access.js';
import type { Database } from '../db/database.js';
import { callerOf } from '../routing/request-context.js';
import { RequestTransaction } from '../routing/request-transaction.js';
import { isUuid } from '../uuid.js';

/** A change under a tenant: decided, and run, inside one transaction that holds the tenant's lock. */
export const isTenantWrite = (req: Parameters<RequestHandler>[0]) =>
  accessRuleOf(req.tsRestRoute) === 'tenantAdmin' && req.method !== 'GET' && req.method !== 'HEAD';

/**
 * Applies the access rule the contract declares for the route, once per request, before the body
 * is read or validated: a caller without rights learns nothing from validation messages, and
 * never has its body read. Reads decide on what was loaded with the caller; writes under a tenant
 * open their transaction here and decide on the tenant's lock and the caller's role read in it.
 */
export function authorise(db: Database): RequestHandler {
  return (req, res, next) => {
    const rule = accessRuleOf(req.tsRestRoute);
    if (rule === 'public' || rule === 'authenticated') return next();
    const tenantId = req.params.tenantId;
    // A malformed id names no tenant: let validation answer it.
    if (rule === 'tenantAdmin' && (!tenantId || !isUuid(tenantId))) return next();
    if (!isTenantWrite(req)) {
      try {
        req.tenantAccess = decideAccess(rule, req.accessFacts ?? { isSuperAdmin: false });
      } catch (error) {
        return next(error);
      }
      return next();
    }
    decideInTransaction(db, req, res, tenantId as string).then(() => next(), next);
  };
}

async function decideInTransaction(
  db: Database,
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  tenantId: string,
): Promise<void> {
  const caller = callerOf(req);
  req.transaction = await RequestTransaction.begin(db, res);
  const tenant = await lockTenantForWrite(req.transaction.tx, tenantId, caller);
  req.tenantAccess = decideAccess('tenantAdmin', {
    isSuperAdmin: caller.isSuperAdmin,
    tenant: { tenantId, ...tenant },
  });
}
