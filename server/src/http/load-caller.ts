import type { RequestHandler } from 'express';
import { findCallerInTenant } from '../access/access.repository.js';
import { type AccessFacts, accessRuleOf } from '../access/decide-access.js';
import { identify } from '../auth/identity.service.js';
import type { TokenClaims } from '../auth/token-verifier.js';
import type { Database } from '../db/database.js';
import { UnauthenticatedError } from '../errors/index.js';
import { findUserBySubject } from '../modules/users/users.repository.js';
import { isUuid } from '../uuid.js';
import { isTenantWrite } from './authorise.js';

/**
 * Loads the caller's record (created on first sight); flags and roles are read fresh on every
 * request. A read under a tenant gets, in the same statement, what its access is decided on: the
 * tenant and the caller's role there. A write under a tenant reads those in its transaction.
 */
export function loadCaller(db: Database): RequestHandler {
  return (req, _res, next) => {
    if (accessRuleOf(req.tsRestRoute) === 'public') return next();
    if (!req.authClaims) return next(req.authFailure ?? new UnauthenticatedError());
    const tenantId = req.params.tenantId;
    const readsTenant =
      accessRuleOf(req.tsRestRoute) === 'tenantAdmin' && tenantId && isUuid(tenantId) && !isTenantWrite(req);
    (readsTenant ? loadInTenant(db, req.authClaims, tenantId) : load(db, req.authClaims)).then((loaded) => {
      req.caller = loaded.caller;
      req.accessFacts = loaded.facts;
      next();
    }, next);
  };
}

async function load(db: Database, claims: TokenClaims) {
  const { caller } = await identify(db, claims, await findUserBySubject(db, claims.sub));
  return { caller, facts: { isSuperAdmin: caller.isSuperAdmin } satisfies AccessFacts };
}

async function loadInTenant(db: Database, claims: TokenClaims, tenantId: string) {
  let found = await findCallerInTenant(db, claims.sub, tenantId);
  const { caller, membershipsMoved } = await identify(db, claims, found?.user);
  // First sight, or an invitation just claimed: the role read above is not the caller's.
  if (membershipsMoved) found = await findCallerInTenant(db, claims.sub, tenantId);
  const tenant = { tenantId, ...(found?.tenant ?? { exists: false, role: null }) };
  return { caller, facts: { isSuperAdmin: caller.isSuperAdmin, tenant } satisfies AccessFacts };
}
