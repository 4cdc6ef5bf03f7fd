import type { Request, RequestHandler } from 'express';
import { Histogram } from 'prom-client';
import { OPENAPI_PATH } from '../openapi/docs.router.js';

/** The route label of every request that no route of ours answered (404, 405, CORS preflights). */
export const UNMATCHED_ROUTE = 'unmatched';
/** The status label of a request whose client went away before the answer was complete (nginx's). */
export const CLIENT_GONE_STATUS = 499;

const DOCS_PATH = '/docs';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

// Its _count is the request count: one observation per request, no second metric to keep.
const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by route template, method and status: seconds from the request reaching the app to its answer',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

type Observe = (seconds: number) => void;
/**
 * prom-client's child per label set, kept: a request then builds no label object, only prom-client's
 * own lookup. Keyed by the route template (one of a fixed set of strings), then by status and
 * method as one number.
 */
const children = new Map<string, Map<number, Observe>>();

function childFor(route: string, method: number, status: number): Observe {
  let byRoute = children.get(route);
  if (!byRoute) {
    byRoute = new Map();
    children.set(route, byRoute);
  }
  const key = status * 8 + method;
  let observe = byRoute.get(key);
  if (!observe) {
    const labels = { route, method: METHODS[method] ?? 'OTHER', status: String(status) };
    observe = requestDuration.labels(labels).observe;
    byRoute.set(key, observe);
  }
  return observe;
}

/**
 * The route's template as the contract writes it (`/tenants/:tenantId/memberships/:tenantMembershipId`),
 * never the path: ids, emails in a query, whatever a caller sends never become a label (nor grow
 * the set of series without bound).
 */
function routeOf(req: Request, status: number): string {
  const route = req.tsRestRoute?.path;
  if (route) return route;
  if (status >= 400) return UNMATCHED_ROUTE;
  // req.path may be cut by the docs router's mount point by now; the original URL is never changed.
  const url = req.originalUrl;
  if (isAt(url, OPENAPI_PATH)) return OPENAPI_PATH;
  if (isAt(url, DOCS_PATH) || url.startsWith(`${DOCS_PATH}/`)) return DOCS_PATH;
  return UNMATCHED_ROUTE;
}

const isAt = (url: string, path: string) =>
  url.startsWith(path) && (url.length === path.length || url[path.length] === '?');

function methodIndex(method: string): number {
  const index = (METHODS as readonly string[]).indexOf(method);
  return index === -1 ? METHODS.length : index;
}

/**
 * One observation per request, when its answer is complete or its client gone ('close' comes in
 * both cases, 'finish' only in the first). First of the app's middleware, so that the time of the
 * others is in it.
 */
export function recordRequestMetrics(): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : CLIENT_GONE_STATUS;
      childFor(routeOf(req, status), methodIndex(req.method), status)((performance.now() - started) / 1000);
    });
    next();
  };
}
