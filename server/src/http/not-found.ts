import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { MethodNotAllowedError, RouteNotFoundError } from '../errors/index.js';

const toPattern = (path: string) => new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}/?$`);

/** A known path with the wrong method is a 405 naming the allowed ones; anything else, a 404. */
export function notFound(routes: AppRoute[]): RequestHandler {
  const patterns = routes.map((route) => ({ pattern: toPattern(route.path), method: route.method }));
  return (req, _res, next) => {
    const allowed = [...new Set(patterns.filter((p) => p.pattern.test(req.path)).map((p) => p.method))];
    next(
      allowed.length > 0
        ? new MethodNotAllowedError(req.method, allowed)
        : new RouteNotFoundError(req.method, req.path),
    );
  };
}
