import { routeMetadata } from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { resolveCaller } from '../auth/identity.service.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { Database } from '../db/database.js';
import { UnauthenticatedError } from '../errors/index.js';
import { isUuid } from '../uuid.js';

// RFC 9110 §11.1: the scheme is case-insensitive; RFC 6750 §2.1: "Bearer" 1*SP b64token.
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i;

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
    // Node keeps only the first Authorization in req.headers; a proxy or cache may pick another.
    // Which credential counts must not be up to whoever reads first: refuse the request.
    if (authorizationCount(req.rawHeaders) > 1) {
      req.authFailure = new UnauthenticatedError('Send one Authorization header, not several');
      return next();
    }
    // Node has already stripped the whitespace around the value.
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
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

function authorizationCount(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'authorization') count++;
  }
  return count;
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
