import { type AppRoute, checkZodSchema } from '@ts-rest/core';
import type { Request, RequestHandler } from 'express';
import { factOf } from '../access/access.repository.js';
import { findCaller } from '../access/caller-read.repository.js';
import { type AccessFacts, accessRuleOf } from '../access/decide-access.js';
import { identify } from '../auth/identity.service.js';
import type { TokenClaims } from '../auth/token-verifier.js';
import type { Database } from '../db/database.js';
import { UnauthenticatedError } from '../errors/index.js';
import { findUserBySubject } from '../modules/users/users.repository.js';
import { isUuid } from '../uuid.js';
import { isTenantWrite } from './authorise.js';

/**
 * Where the caller is read. A read looks its caller up in its own one statement, with its data
 * (access/read-as-caller.ts), when its input is valid: the statement needs it. A write under a
 * tenant reads its caller in its transaction, after the tenant's lock (http/authorise.ts). Here,
 * otherwise: the caller's record (created on first sight), and on a tenant read whose input is not
 * valid, the tenant and the caller's role there, so access is still decided before validation.
 */
export function loadCaller(db: Database): RequestHandler {
  return (req, _res, next) => {
    if (accessRuleOf(req.tsRestRoute) === 'public') return next();
    if (!req.authClaims) return next(req.authFailure ?? new UnauthenticatedError());
    if (isRead(req) && inputIsValid(req)) {
      req.readsWithCaller = true;
      return next();
    }
    // A POST with an Idempotency-Key claims its key, per caller, before its transaction begins.
    if (isTenantWrite(req) && req.headers['idempotency-key'] === undefined) return next();
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

const isRead = (req: Request) => req.method === 'GET' || req.method === 'HEAD';

/** What ts-rest is about to check, checked the same way (the path, the query, the headers). */
function inputIsValid(req: Request): boolean {
  const route = req.tsRestRoute as AppRoute | undefined;
  if (!route) return false;
  return (
    checkZodSchema(req.params, route.pathParams, { passThroughExtraKeys: true }).success &&
    checkZodSchema(req.query, route.query).success &&
    checkZodSchema(req.headers, route.headers, { passThroughExtraKeys: true }).success
  );
}

async function load(db: Database, claims: TokenClaims) {
  const { caller } = await identify(db, claims, await findUserBySubject(db, claims.sub));
  return { caller, facts: { isSuperAdmin: caller.isSuperAdmin } satisfies AccessFacts };
}

async function loadInTenant(db: Database, claims: TokenClaims, tenantId: string) {
  let found = await findCaller(db, claims.sub, tenantId);
  const { caller, membershipsMoved } = await identify(db, claims, found);
  // First sight, or an invitation just claimed: the role read above is not the caller's.
  if (membershipsMoved) found = await findCaller(db, claims.sub, tenantId);
  const tenant = { tenantId, ...factOf(found) };
  return { caller, facts: { isSuperAdmin: caller.isSuperAdmin, tenant } satisfies AccessFacts };
}
