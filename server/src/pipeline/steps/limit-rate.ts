import type { RequestHandler } from 'express';
import { RateLimitedError, UnauthenticatedError } from '../../errors/index.js';
import type { RateLimiter } from '../../rate-limit/rate-limiter.js';

/**
 * Per caller: the token's subject, or the client's address when there is no valid token. Then the
 * token's refusal, if it was refused: a flood of bad tokens is limited like any other.
 */
export function limitRate(limiter: RateLimiter | undefined): RequestHandler {
  return (req, res, next) => {
    const { claims, authFailure } = req.state;
    if (limiter) {
      const key = claims ? `sub:${claims.sub}` : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
      const decision = limiter.hit(key);
      res.setHeader('RateLimit-Limit', String(decision.limit));
      res.setHeader('RateLimit-Remaining', String(decision.remaining));
      res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) return next(new RateLimitedError(decision.resetSeconds));
    }
    next(claims ? undefined : (authFailure ?? new UnauthenticatedError()));
  };
}
