import { contract, scimContract } from '@tms/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { createExpressEndpoints, type TsRestExpressOptions } from '@ts-rest/express';
import express from 'express';
import { Admission } from './admission/admission.js';
import { DEFAULT_ADMISSION, DOWNLOADS } from './admission/admission-settings.js';
import { CodeKeys } from './auth/code-keys.js';
import type { TokenVerifier } from './auth/token-verifier.js';
import { DEFAULT_TENANT_RETENTION_DAYS } from './config.js';
import type { Database } from './db/database.js';
import { ScimError } from './errors/index.js';
import { apiSecurityHeaders, corsFor } from './http/browser-security.js';
import { errorHandler } from './http/error-handler.js';
import { inSeries } from './http/in-series.js';
import { leanJson } from './http/lean-json.js';
import { notFound } from './http/not-found.js';
import { requestDeadline } from './http/request-deadline.js';
import { requestId } from './http/request-id.js';
import { requestLog } from './http/request-log.js';
import type { Logger } from './logger.js';
import { recordRequestMetrics } from './metrics/http-metrics.js';
import { auditEventsRoutes } from './modules/audit/audit-events.router.js';
import { joinByVerifiedDomains } from './modules/domains/domain-joins.service.js';
import { domainsRoutes } from './modules/domains/domains.router.js';
import { guardianInvitationsRoutes } from './modules/guardians/guardian-invitations.router.js';
import { guardiansRoutes } from './modules/guardians/guardians.router.js';
import { healthRoutes } from './modules/health/health.router.js';
import { invitationsRoutes } from './modules/invitations/invitations.router.js';
import { joinCodesRoutes } from './modules/joining/join-codes.router.js';
import { joinRequestsRoutes } from './modules/joining/join-requests.router.js';
import { meRoutes } from './modules/me/me.router.js';
import { membershipsRoutes } from './modules/memberships/memberships.router.js';
import { ownershipTransfersRoutes } from './modules/ownership-transfers/ownership-transfers.router.js';
import { membershipExportRoutes } from './modules/rosters/membership-export.router.js';
import { rosterImportsRoutes } from './modules/rosters/roster-imports.router.js';
import { RosterJobs } from './modules/rosters/roster-jobs.js';
import { scimRoutes } from './modules/scim/scim.router.js';
import { scimGroupsRoutes } from './modules/scim/scim-groups.router.js';
import { scimTokensRoutes } from './modules/scim/scim-tokens.router.js';
import { tenantsRoutes } from './modules/tenants/tenants.router.js';
import { usersRoutes } from './modules/users/users.router.js';
import { platformWebhooksRoutes } from './modules/webhooks/platform-webhooks.router.js';
import type { Resolver } from './modules/webhooks/target-address.js';
import { DEFAULT_WEBHOOK_TARGETS } from './modules/webhooks/webhook-endpoints.service.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.router.js';
import { docsRouter } from './openapi/docs.router.js';
import { buildRouter } from './pipeline/build-router.js';
import { decideBeforeValidationAnswers } from './pipeline/steps/decide-early.js';
import { CodeTries } from './rate-limit/code-tries.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';

export type AppDeps = {
  db: Database;
  /** Where long work runs (db/client.ts): the member export's download. Default: `db`. */
  long?: Database;
  verifyToken: TokenVerifier;
  logger: Logger;
  version: string;
  startedAt?: number;
  corsOrigins?: string[];
  requestTimeoutMs?: number;
  /** True once the process is shutting down: answers then close their connections. */
  isStopping?: () => boolean;
  rateLimiter?: RateLimiter;
  /** How much database work is admitted at once, and how it is shared (admission/admission.ts). */
  admission?: Admission;
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
  /** The keys join and pairing codes are kept under (CODE_SECRET); default: keys of this app alone. */
  codeKeys?: CodeKeys;
  /** How many code redemptions a caller and an address may try (CODE_TRIES_PER_MINUTE); default 10 a minute. */
  codeTries?: CodeTries;
};

/** Keep-alive connections would otherwise bring new requests after SIGTERM and delay the exit. */
const closingWhen =
  (isStopping: () => boolean): express.RequestHandler =>
  (_req, res, next) => {
    if (isStopping()) res.setHeader('Connection', 'close');
    next();
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
  app.response.json = leanJson;
  // First: the time of every other middleware is in the request's duration.
  if (deps.recordMetrics) app.use(recordRequestMetrics());

  const isStopping = deps.isStopping;
  const admission = deps.admission ?? new Admission(DEFAULT_ADMISSION);
  const allowCors = corsFor(deps.corsOrigins ?? []);
  // What every request goes through first, as one handler (http/in-series.ts).
  app.use(
    inSeries([
      ...(isStopping ? [closingWhen(isStopping)] : []),
      requestId,
      requestLog(logger),
      // A request past its deadline waited on the database: admission then refuses 503, not 429.
      requestDeadline(deps.requestTimeoutMs ?? 4000, () => admission.noteDeadline()),
      apiSecurityHeaders,
      ...(allowCors ? [allowCors] : []),
    ]),
  );

  const webhookTargets = deps.webhooks ?? DEFAULT_WEBHOOK_TARGETS;
  const codeKeys = deps.codeKeys ?? CodeKeys.ephemeral();
  const codeTries = deps.codeTries ?? CodeTries.create(db, 10);
  const pipelineDeps = {
    db,
    ...(deps.long && { long: deps.long }),
    verifyToken: deps.verifyToken,
    ...(deps.rateLimiter && { rateLimiter: deps.rateLimiter }),
    admission,
    downloads: new Admission(DOWNLOADS),
    // Identification sits below the modules: joining by a verified domain is handed to it here.
    atSignIn: joinByVerifiedDomains,
  };
  const router = buildRouter(
    contract,
    {
      // Express tries routes in this order, a pattern at a time: the busiest first. A literal path
      // (…/memberships/export) comes before a pattern that would catch it (…/memberships/:id):
      // test/unit/route-order.test.ts.
      me: meRoutes,
      membershipExport: membershipExportRoutes(logger),
      rosterImports: rosterImportsRoutes(deps.rosterJobs ?? new RosterJobs({ db, logger })),
      memberships: membershipsRoutes,
      tenants: tenantsRoutes({ days: deps.tenantRetentionDays ?? DEFAULT_TENANT_RETENTION_DAYS }),
      invitations: invitationsRoutes,
      ownershipTransfers: ownershipTransfersRoutes,
      auditEvents: auditEventsRoutes,
      scimTokens: scimTokensRoutes,
      scimGroups: scimGroupsRoutes,
      webhooks: webhooksRoutes(webhookTargets),
      platformWebhooks: platformWebhooksRoutes(webhookTargets),
      users: usersRoutes,
      guardians: guardiansRoutes({ codeKeys, codeTries }),
      guardianInvitations: guardianInvitationsRoutes,
      health: healthRoutes(db, deps.version, deps.startedAt ?? Date.now(), isStopping),
      joinCodes: joinCodesRoutes({ codeKeys, codeTries }),
      joinRequests: joinRequestsRoutes,
      domains: domainsRoutes,
    },
    pipelineDeps,
  );
  const options: TsRestExpressOptions<typeof contract> = {
    logInitialization: false,
    responseValidation: false,
    requestValidationErrorHandler: decideBeforeValidationAnswers(pipelineDeps) as NonNullable<
      TsRestExpressOptions<typeof contract>['requestValidationErrorHandler']
    >,
  };
  createExpressEndpoints(contract, router, app, options);
  // The tenant's directory (SCIM 2.0): its own credential, media type and error schema.
  createExpressEndpoints(scimContract, buildRouter(scimContract, { scim: scimRoutes }, pipelineDeps), app, {
    logInitialization: false,
    responseValidation: false,
    // ts-rest installs this for the whole app: the API's own validation errors pass through untouched.
    requestValidationErrorHandler: (error, req, _res, next) =>
      next(
        req.state?.scim
          ? new ScimError(400, 'invalidSyntax', error.body?.issues[0]?.message ?? 'The request is not valid')
          : error,
      ),
  });

  // After the API: an API request then never walks through the docs router.
  app.use(docsRouter(deps.version));
  app.use(notFound([...flattenRoutes(contract), ...flattenRoutes(scimContract)]));
  app.use(errorHandler(logger));
  return app;
}
