import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * Helmet's full set, for the pages a browser renders: /docs and /openapi.json. The policy keeps
 * Swagger UI working: its scripts and styles are served from here, it draws images from data:
 * URLs, and it calls this same origin. Requests are not upgraded to https, so /docs also works on
 * a plain-http development server.
 */
const helmetHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: true,
    directives: {
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'upgrade-insecure-requests': null,
    },
  },
  crossOriginEmbedderPolicy: false,
  // Plain HTTP: see API_HEADERS.
  strictTransportSecurity: false,
});

/** helmet's answer never depends on the request here: computed once rather than on every request. */
function staticHelmetHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const res = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => {},
  };
  helmetHeaders({} as Request, res as unknown as Response, () => {});
  return headers;
}

/**
 * The API answers JSON that no browser renders, so most of helmet's set (CSP sources, referrer,
 * DNS prefetch, download options...) means nothing there and costs every caller ~500 bytes per
 * answer to send and parse. What remains is what OWASP's REST cheat sheet asks of an API: nothing
 * may sniff, render or frame an answer (`frame-ancestors` supersedes X-Frame-Options), no shared
 * cache may keep one (answers are per caller), and no other site may read one without CORS.
 * No Strict-Transport-Security: the service speaks plain HTTP, and RFC 6797 (7.2) forbids the
 * header there; whoever terminates TLS in front of it sets it for the whole host.
 */
const API_HEADERS: [string, string][] = [
  ['Cache-Control', 'no-store'],
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['X-Content-Type-Options', 'nosniff'],
];

const setting =
  (headers: [string, string][]): RequestHandler =>
  (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };

/** For API answers (and errors, 404s included). */
export const apiSecurityHeaders = setting(API_HEADERS);

/** For the documentation pages; replaces the API's headers of the same names. */
export const pageSecurityHeaders = setting(staticHelmetHeaders());

/**
 * The headers a browser app needs to read: versions for If-Match, ids for support requests, when
 * to retry, whether a POST was a replay.
 */
const EXPOSED = [
  'ETag',
  'Idempotent-Replayed',
  'x-request-id',
  'Retry-After',
  'WWW-Authenticate',
  'Allow',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];
const ALLOWED = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'Idempotency-Key',
  'x-request-id',
  'x-tenant-id',
];

/** CORS for the configured origins only; none configured, no CORS headers at all. */
export function corsFor(origins: string[]): RequestHandler | undefined {
  if (origins.length === 0) return undefined;
  return cors({
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED,
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
}
