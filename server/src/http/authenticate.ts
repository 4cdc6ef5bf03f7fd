import { routeMetadata } from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { resolveCaller } from '../auth/identity.service.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { Database } from '../db/database.js';
import { UnauthenticatedError } from '../errors/index.js';
import { isUuid } from '../uuid.js';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

export const accessOf = (route: { metadata?: unknown } | undefined) =>
  route ? routeMetadata(route as AppRoute).access : 'authenticated';

const isPublic = (req: Parameters<RequestHandler>[0]) => accessOf(req.tsRestRoute) === 'public';

/**
 * Verifies the bearer token without touching the database. A refusal is kept on the request, not
 * answered yet, so that the rate limit counts bad tokens too (by address).
 */
export function verifyBearer(verify: TokenVerifier): RequestHandler {
  return (req, _res, next) => {
    if (isPublic(req)) return next();
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header.trim()) : null;
    if (!match?.[1]) {
      req.authFailure = new UnauthenticatedError();
      return next();
    }
    verify(match[1]).then(
      (claims) => {
        req.authClaims = claims;
        next();
      },
      (error: Error) => {
        req.authFailure = error;
        next();
      },
    );
  };
}

/** Loads the caller's record (created on first sight); roles and flags are read fresh each time. */
export function loadCaller(db: Database): RequestHandler {
  return (req, _res, next) => {
    if (isPublic(req)) return next();
    if (!req.authClaims) return next(req.authFailure ?? new UnauthenticatedError());
    // On tenant routes the caller's role there comes in the same round trip as the caller.
    const tenantId = accessOf(req.tsRestRoute) === 'tenantAdmin' ? req.params.tenantId : undefined;
    resolveCaller(db, req.authClaims, tenantId && isUuid(tenantId) ? tenantId : undefined).then((caller) => {
      req.caller = caller;
      next();
    }, next);
  };
}
