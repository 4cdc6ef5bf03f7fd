import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * Security headers for every answer. The policy keeps Swagger UI working: its scripts and styles
 * are served from here, it draws images from data: URLs, and it calls this same origin. Requests
 * are not upgraded to https, so /docs also works on a plain-http development server.
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
});

/** helmet's answer never depends on the request here: computed once rather than on every request. */
function staticHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const res = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => {},
  };
  helmetHeaders({} as Request, res as unknown as Response, () => {});
  return headers;
}

const SECURITY_HEADERS = staticHeaders();

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  next();
};

/** The headers a browser app needs to read: versions for If-Match, ids for support requests. */
const EXPOSED = [
  'ETag',
  'x-request-id',
  'Retry-After',
  'WWW-Authenticate',
  'Allow',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];
const ALLOWED = ['Authorization', 'Content-Type', 'If-Match', 'x-request-id', 'x-tenant-id'];

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
