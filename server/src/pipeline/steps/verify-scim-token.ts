import type { RequestHandler } from 'express';
import { findScimCaller } from '../../access/scim-token.repository.js';
import type { Admission } from '../../admission/admission.js';
import { looksLikeScimToken, scimTokenHashOf } from '../../auth/scim-token-secret.js';
import type { Database } from '../../db/database.js';
import { RateLimitedError, UnauthenticatedError } from '../../errors/index.js';
import type { RateLimiter } from '../../rate-limit/rate-limiter.js';
import { isUuid } from '../../uuid.js';
import { admitted } from '../admitted.js';

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i;
const refused = () => new UnauthenticatedError('Send a SCIM token of this tenant as the bearer token');

/**
 * The first step of a SCIM route (its answers, refusals included, are SCIM's from here on): a SCIM
 * token of the URL's tenant, live (not revoked, not expired, its tenant not deleted), and nothing
 * else. A user's JWT, or another tenant's token, is refused alike (401, as RFC 7644 §2 has it), so
 * a token tells nobody which other tenants exist. The refusal is kept, not answered yet: the rate
 * limit (limitDirectoryRate) counts refused requests by address first.
 */
export function verifyScimToken(db: Database, admission: Admission | undefined): RequestHandler {
  return (req, _res, next) => {
    req.state.scim = true;
    req.state.params = req.params;
    const header = req.headers.authorization;
    const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    const tenantId = req.params.tenantId ?? '';
    if (!token || !looksLikeScimToken(token) || authorizationCount(req.rawHeaders) > 1 || !isUuid(tenantId)) {
      req.state.authFailure = refused();
      return next();
    }
    admitted(admission, req, 'read', () => findScimCaller(db, tenantId, scimTokenHashOf(token))).then(
      (caller) => {
        if (caller) req.state.directory = caller;
        else req.state.authFailure = refused();
        next();
      },
      next,
    );
  };
}

/**
 * A tenant's directory syncs in bursts: with a live token it spends the tenant's directory budget
 * (RateLimiter.hitDirectory), which nobody without one can exhaust; a refused token spends its
 * address's, as a refused JWT does (limit-rate.ts). Then the token's refusal, if any.
 */
export function limitDirectoryRate(limiter: RateLimiter | undefined): RequestHandler {
  return (req, res, next) => {
    const { directory, authFailure } = req.state;
    if (limiter) {
      const decision = directory
        ? limiter.hitDirectory(directory.tenantId)
        : limiter.hit(`ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`);
      res.setHeader('RateLimit-Limit', String(decision.limit));
      res.setHeader('RateLimit-Remaining', String(decision.remaining));
      res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) return next(new RateLimitedError(decision.resetSeconds));
    }
    next(directory ? undefined : (authFailure ?? refused()));
  };
}

function authorizationCount(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'authorization') count++;
  }
  return count;
}
