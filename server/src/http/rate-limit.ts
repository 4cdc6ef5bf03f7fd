import type { RequestHandler } from 'express';
import { accessRuleOf } from '../access/decide-access.js';
import { RateLimitedError } from '../errors/index.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';

/** Per caller: the token's subject, or the client's address when there is no valid token. */
export function rateLimit(limiter: RateLimiter | undefined): RequestHandler {
  return (req, res, next) => {
    if (!limiter || accessRuleOf(req.tsRestRoute) === 'public') return next();
    const key = req.authClaims
      ? `sub:${req.authClaims.sub}`
      : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
    const decision = limiter.hit(key);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    next(decision.allowed ? undefined : new RateLimitedError(decision.resetSeconds));
  };
}
