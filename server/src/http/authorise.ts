import { contract } from '@tms/contract';
import type { RequestHandler } from 'express';
import { lockTenantForWrite } from '../access/access.repository.js';
import { accessRuleOf, decideAccess } from '../access/decide-access.js';
import { identify, identityIsCurrent, toCaller } from '../auth/identity.service.js';
import type { Database } from '../db/database.js';
import { RequestTransaction } from '../routing/request-transaction.js';
import { isUuid } from '../uuid.js';

/**
 * A roster import reads up to 10 MiB before it changes anything, and must not hold the tenant's
 * lock while that arrives: its access is decided as a read's is, it reads its own body
 * (modules/rosters/roster-body.ts), and its service locks the tenant and decides again under the
 * lock once the file is read.
 */
export const locksAfterItsBody = (req: Parameters<RequestHandler>[0]) =>
  req.tsRestRoute === contract.rosterImports.create;

/** A change under a tenant: decided, and run, inside one transaction that holds the tenant's lock. */
export const isTenantWrite = (req: Parameters<RequestHandler>[0]) =>
  accessRuleOf(req.tsRestRoute) === 'tenantAdmin' &&
  req.method !== 'GET' &&
  req.method !== 'HEAD' &&
  !locksAfterItsBody(req);

/**
 * Applies the access rule the contract declares for the route, once per request, before the body
 * is read or validated: a caller without rights learns nothing from validation messages, and
 * never has its body read. A read with valid input decides in its own statement (see
 * load-caller.ts); other reads decide on what was loaded with the caller; writes under a tenant
 * open their transaction here and decide on the tenant's lock and the caller read under it.
 */
export function authorise(db: Database): RequestHandler {
  return (req, res, next) => {
    const rule = accessRuleOf(req.tsRestRoute);
    if (rule === 'public' || rule === 'authenticated' || req.readsWithCaller) return next();
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
  const claims = req.authClaims;
  if (!claims) throw new Error('a tenant write without verified claims');
  let transaction = await RequestTransaction.begin(db, res);
  let found = await lockTenantForWrite(transaction.tx, tenantId, claims.sub);
  if (!identityIsCurrent(claims, found.user)) {
    // First sight, or new claims: identifying may claim an invitation, which locks tenants of its
    // own (in id order), so never under this tenant's lock. Then begin again.
    await transaction.abandon();
    await identify(db, claims, found.user);
    transaction = await RequestTransaction.begin(db, res);
    found = await lockTenantForWrite(transaction.tx, tenantId, claims.sub);
  }
  req.transaction = transaction;
  const user = found.user;
  if (!user) throw new Error(`no user for subject ${claims.sub} after identifying it`);
  req.caller = toCaller(user, claims.sub);
  req.tenantAccess = decideAccess('tenantAdmin', {
    isSuperAdmin: user.isSuperAdmin,
    tenant: { tenantId, ...found.tenant },
  });
}
