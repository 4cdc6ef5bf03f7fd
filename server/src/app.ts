import { type Contract, contract } from '@tms/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { createExpressEndpoints, type TsRestExpressOptions } from '@ts-rest/express';
import express from 'express';
import type { TokenVerifier } from './auth/token-verifier.js';
import { DEFAULT_TENANT_RETENTION_DAYS } from './config.js';
import type { Database } from './db/database.js';
import { verifyBearer } from './http/authenticate.js';
import { authorise } from './http/authorise.js';
import { apiSecurityHeaders, corsFor } from './http/browser-security.js';
import { errorHandler } from './http/error-handler.js';
import { idempotencyKey } from './http/idempotency-key.js';
import { jsonBody } from './http/json-body.js';
import { loadCaller } from './http/load-caller.js';
import { notFound } from './http/not-found.js';
import { rateLimit } from './http/rate-limit.js';
import { requestDeadline } from './http/request-deadline.js';
import { requestId } from './http/request-id.js';
import { requestLog } from './http/request-log.js';
import { tenantHeaderMatchesUrl } from './http/tenant-header.js';
import type { Logger } from './logger.js';
import { recordRequestMetrics } from './metrics/http-metrics.js';
import { auditEventsRouter } from './modules/audit/audit-events.router.js';
import { healthRouter } from './modules/health/health.router.js';
import { invitationsRouter } from './modules/invitations/invitations.router.js';
import { meRouter } from './modules/me/me.router.js';
import { membershipsRouter } from './modules/memberships/memberships.router.js';
import { ownershipTransfersRouter } from './modules/ownership-transfers/ownership-transfers.router.js';
import { membershipExportRouter } from './modules/rosters/membership-export.router.js';
import { rosterImportsRouter } from './modules/rosters/roster-imports.router.js';
import { RosterJobs } from './modules/rosters/roster-jobs.js';
import { tenantsRouter } from './modules/tenants/tenants.router.js';
import { usersRouter } from './modules/users/users.router.js';
import { platformWebhooksRouter } from './modules/webhooks/platform-webhooks.router.js';
import type { Resolver } from './modules/webhooks/target-address.js';
import { DEFAULT_WEBHOOK_TARGETS } from './modules/webhooks/webhook-endpoints.service.js';
import { webhooksRouter } from './modules/webhooks/webhooks.router.js';
import { docsRouter } from './openapi/docs.router.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';

export type AppDeps = {
  db: Database;
  verifyToken: TokenVerifier;
  logger: Logger;
  version: string;
  startedAt?: number;
  corsOrigins?: string[];
  requestTimeoutMs?: number;
  /** True once the process is shutting down: answers then close their connections. */
  isStopping?: () => boolean;
  /** Called when a request reaches its deadline: the database may hold a stuck connection. */
  onDeadline?: () => void;
  rateLimiter?: RateLimiter;
  /** Express's `trust proxy`: which proxies may tell the client's address (for anonymous rate limits). */
  trustProxy?: boolean | number | string;
  /** TENANT_RETENTION_DAYS: how long a deleted tenant can be restored (default 30). */
  tenantRetentionDays?: number;
  /**
   * Where webhook endpoints may point (config.webhooks): checked at registration and on a new
   * URL. Default: private networks refused, plain http allowed. `resolve`: how names are
   * resolved (the system's resolver by default; tests pass one that never leaves the machine).
   */
  webhooks?: { allowPrivateNetworks: boolean; requireHttps: boolean; resolve?: Resolver };
  /** Where large roster imports run (main.ts starts and stops it); by default one that is never started. */
  rosterJobs?: RosterJobs;
  /** Times every request for the metrics (metrics/http-metrics.ts); off unless METRICS_PORT is set. */
  recordMetrics?: boolean;
};

export const flattenRoutes = (router: AppRouter): AppRoute[] =>
  Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : flattenRoutes(entry)));

export function createApp(deps: AppDeps): express.Express {
  const { db, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', deps.trustProxy ?? false);
  // First: the time of every other middleware is in the request's duration.
  if (deps.recordMetrics) app.use(recordRequestMetrics());

  const isStopping = deps.isStopping;
  if (isStopping) {
    // Keep-alive connections would otherwise bring new requests after SIGTERM and delay the exit.
    app.use((_req, res, next) => {
      if (isStopping()) res.setHeader('Connection', 'close');
      next();
    });
  }
  app.use(
    requestId,
    requestLog(logger),
    requestDeadline(deps.requestTimeoutMs ?? 4000, deps.onDeadline),
    apiSecurityHeaders,
  );
  const allowCors = corsFor(deps.corsOrigins ?? []);
  if (allowCors) app.use(allowCors);

  // Per matched route, in this order: how often you call (429), who you are (401), whether the request contradicts its URL
  // (400), whether you may (403/404), then the body (415/413/400) and the contract's validation.
  const pipeline = [
    verifyBearer(deps.verifyToken),
    rateLimit(deps.rateLimiter),
    loadCaller(db),
    tenantHeaderMatchesUrl,
    idempotencyKey(db),
    authorise(db),
    jsonBody,
  ];
  const options: TsRestExpressOptions<Contract> = {
    logInitialization: false,
    responseValidation: false,
    globalMiddleware: pipeline as unknown as NonNullable<TsRestExpressOptions<Contract>['globalMiddleware']>,
    requestValidationErrorHandler: (error, _req, _res, next) => next(error),
  };
  const webhookTargets = deps.webhooks ?? DEFAULT_WEBHOOK_TARGETS;
  createExpressEndpoints(
    contract,
    {
      tenants: tenantsRouter(db, { days: deps.tenantRetentionDays ?? DEFAULT_TENANT_RETENTION_DAYS }),
      membershipExport: membershipExportRouter(db, logger),
      rosterImports: rosterImportsRouter(db, deps.rosterJobs ?? new RosterJobs({ db, logger })),
      memberships: membershipsRouter(db),
      invitations: invitationsRouter(db),
      ownershipTransfers: ownershipTransfersRouter(db),
      auditEvents: auditEventsRouter(db),
      webhooks: webhooksRouter(db, webhookTargets),
      platformWebhooks: platformWebhooksRouter(db, webhookTargets),
      users: usersRouter(db),
      me: meRouter(db),
      health: healthRouter(db, deps.version, deps.startedAt ?? Date.now(), isStopping),
    },
    app,
    options,
  );

  // After the API: an API request then never walks through the docs router.
  app.use(docsRouter(deps.version));
  app.use(notFound(flattenRoutes(contract)));
  app.use(errorHandler(logger));
  return app;
}
