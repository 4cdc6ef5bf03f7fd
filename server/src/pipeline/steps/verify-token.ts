import type { RequestHandler } from 'express';
import type { TokenVerifier } from '../../auth/token-verifier.js';
import { UnauthenticatedError } from '../../errors/index.js';

// RFC 9110 §11.1: the scheme is case-insensitive; RFC 6750 §2.1: "Bearer" 1*SP b64token.
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i;

/**
 * Verifies the bearer token without touching the database. A refusal is kept on the request, not
 * answered yet, so that the rate limit counts bad tokens too (by address): see limit-rate.ts.
 */
export function verifyToken(verify: TokenVerifier): RequestHandler {
  return (req, _res, next) => {
    req.state.params = req.params;
    // Node keeps only the first Authorization in req.headers; a proxy or cache may pick another.
    // Which credential counts must not be up to whoever reads first: refuse the request.
    if (authorizationCount(req.rawHeaders) > 1) {
      req.state.authFailure = new UnauthenticatedError('Send one Authorization header, not several');
      return next();
    }
    // Node has already stripped the whitespace around the value.
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match?.[1]) {
      req.state.authFailure = new UnauthenticatedError();
      return next();
    }
    verify(match[1]).then(
      (claims) => {
        req.state.claims = claims;
        next();
      },
      (error: Error) => {
        req.state.authFailure = error;
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
