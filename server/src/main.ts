import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { Admission } from './admission/admission.js';
import { createApp } from './app.js';
import { type ResolvedAuth, resolveAuth } from './auth/auth-setup.js';
import { resolveCodeKeys } from './auth/code-secret.js';
import { signDevToken } from './auth/sign-token.js';
import { createTokenVerifier } from './auth/token-verifier.js';
import { runPrimary } from './cluster/primary.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { envelopeClientErrors } from './http/client-error.js';
import { createHttpServer } from './http/http-server.js';
import { deleteExpiredKeys } from './idempotency/idempotency.repository.js';
import { createLogger } from './logger.js';
import { scrapeCluster } from './metrics/cluster-scrape.js';
import { observeQueryDuration } from './metrics/database-metrics.js';
import { enableMetrics } from './metrics/enable-metrics.js';
import { scrapeThisProcess, startMetricsListener } from './metrics/metrics-listener.js';
import { purgeExpiredAuditEvents } from './modules/audit/audit-retention.js';
import { RosterJobs } from './modules/rosters/roster-jobs.js';
import { purgeDeletedTenants } from './modules/tenants/tenant-deletion.service.js';
import { scheduleTenantPurge } from './modules/tenants/tenant-purge-schedule.js';
import { grantSuperAdmin } from './modules/users/super-admins.service.js';
import { WebhookDispatcher } from './modules/webhooks/webhook-dispatcher.js';
import { CodeTries } from './rate-limit/code-tries.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import { VERSION } from './version.js';

const SHUTDOWN_GRACE_MS = 10_000;
/** Outside production, the subject of the printed token when SUPER_ADMIN_SUBJECTS names none. */
const LOCAL_ADMIN_SUBJECT = 'local-admin';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Outside production with a secret, a super-administrator token is printed for /docs and curl. */
function devAdminSubject(config: Config, auth: ResolvedAuth): string | undefined {
  if (config.env === 'production' || !('secret' in auth)) return undefined;
  return config.superAdminSubjects[0] ?? LOCAL_ADMIN_SUBJECT;
}

async function printDevToken(subject: string, auth: ResolvedAuth, baseUrl: string) {
  if (!('secret' in auth)) return;
  const token = await signDevToken(auth.secret, {
    sub: subject,
    name: 'Local administrator',
    ttl: '12h',
    issuer: auth.issuer,
    audience: auth.audience,
  });
  console.warn(
    [
      '',
      `  Docs:  ${baseUrl}/docs`,
      `  Super-administrator token (subject "${subject}", valid 12 h; paste it into Authorize in /docs):`,
      '',
      `  ${token}`,
      '',
      `  TOKEN=${token}`,
      `  curl -H "Authorization: Bearer $TOKEN" ${baseUrl}/me`,
      '',
    ].join('\n'),
  );
}

async function main(config: Config) {
  const logger = createLogger(config.logLevel);
  const auth = resolveAuth(config);
  const { pollIntervalMs, concurrency } = config.webhooks;
  const delivering = pollIntervalMs > 0 && concurrency > 0;
  // One connection per delivery worker (each holds one while it sends a run), one to look for work.
  const backgroundPoolSize = delivering ? concurrency + 1 : 0;
  // First: a metrics port already taken stops the start before the database is opened. In a
  // cluster the primary serves every worker's metrics, and a worker only answers it (enableMetrics).
  if (config.metrics && !cluster.isWorker)
    await startMetricsListener({ ...config.metrics, logger, scrape: scrapeThisProcess });
  const observeQueries = config.metrics && observeQueryDuration;
  const database = await openDatabase(config.database, {
    backgroundPoolSize,
    ...(observeQueries && { observeQueries }),
    onConnectionReplaced: () => logger.warn('a database connection stopped answering: replaced'),
    onBackendsNotEnded: (err: unknown) =>
      logger.error({ err }, 'the database sessions of replaced connections could not be ended'),
  }).catch((error: unknown) => {
    console.error(`cannot open the ${config.database.kind} database: ${(error as Error).message}`);
    process.exit(1);
  });
  if (config.metrics) enableMetrics(database);
  const devSubject = devAdminSubject(config, auth);
  for (const subject of new Set([...config.superAdminSubjects, ...(devSubject ? [devSubject] : [])])) {
    await grantSuperAdmin(database.db, subject);
  }

  let stopping = false;
  // Answers kept for Idempotency-Key replays expire after 24 h; a key past that is free anyway.
  setInterval(() => {
    deleteExpiredKeys(database.db).catch((error: unknown) =>
      logger.warn({ err: error }, 'expired idempotency keys not deleted'),
    );
  }, 3_600_000).unref();
  const rateLimiter = config.rateLimit ? new RateLimiter(database.db, config.rateLimit, logger) : undefined;
  rateLimiter?.start();
  const codeTries = CodeTries.create(database.db, config.codeTriesPerMinute, logger);
  codeTries.start();
  const retention = { days: config.tenants.retentionDays };
  const tenantPurge = scheduleTenantPurge(
    // The same run removes the audit events past AUDIT_RETENTION_DAYS.
    async () => {
      const purged = await purgeDeletedTenants(database.long ?? database.db, retention);
      await purgeExpiredAuditEvents(database.long ?? database.db, config.auditRetentionDays);
      return purged;
    },
    config.tenants.purgeIntervalMinutes,
    logger,
  );
  // Roster imports too large for their request run here. PGlite's directory is this process's alone:
  // an import found unfinished at start belonged to a process that died.
  const rosterJobs = new RosterJobs({
    db: database.long ?? database.db,
    logger,
    exclusive: database.kind === 'pglite',
  });
  const app = createApp({
    db: database.db,
    ...(database.long && { long: database.long }),
    verifyToken: createTokenVerifier(auth),
    logger,
    version: VERSION,
    corsOrigins: config.corsOrigins,
    requestTimeoutMs: config.requestTimeoutMs,
    rateLimiter,
    admission: new Admission(config.admission),
    isStopping: () => stopping,
    trustProxy: config.trustProxy,
    tenantRetentionDays: retention.days,
    webhooks: config.webhooks,
    rosterJobs,
    recordMetrics: config.metrics !== undefined,
    codeKeys: resolveCodeKeys(config, auth),
    codeTries,
  });
  const server = createHttpServer(app, { keepAliveTimeoutMs: config.keepAliveTimeoutMs }).listen(
    config.port,
    config.host,
  );
  envelopeClientErrors(server);
  // Every process helps deliver (the claims keep one delivery in flight per endpoint across them);
  // WEBHOOK_POLL_INTERVAL_MS=0 keeps this one out of it.
  const { allowPrivateNetworks, requireHttps } = config.webhooks;
  const deliveries = delivering
    ? new WebhookDispatcher({
        db: database.background ?? database.db,
        kind: database.kind,
        policy: { allowPrivateNetworks, requireHttps },
        pollIntervalMs,
        concurrency,
        logger,
      })
    : undefined;
  // Before anything announces the server: a signal sent on seeing "listening on" would otherwise
  // find no handler yet and kill the process outright.
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const drainMs = config.shutdownDrainMs;
    logger.info({ signal, drainMs }, 'shutting down: finishing requests in flight');
    // Stops now, beside the requests: no new send starts, and those in flight finish and are
    // recorded (bounded) before the database closes. One cut off is sent again later.
    const deliveriesStopped = deliveries?.stop();
    // Likewise: running imports finish (bounded); one cut off rolls back and is failed as interrupted.
    const importsStopped = rosterJobs.stop();
    const close = () => {
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
      server.close(async () => {
        clearTimeout(force);
        await rateLimiter?.stop();
        await codeTries.stop();
        await tenantPurge.stop();
        await deliveriesStopped;
        await importsStopped;
        await database.close();
        logger.info('stopped');
        process.exit(0);
      });
      // Keep-alive sockets with no request in flight would hold close() open until they time out.
      server.closeIdleConnections();
    };
    if (drainMs === 0) {
      close();
      return;
    }
    // A load balancer keeps routing here until enough of its health checks have failed: refusing
    // connections at once would fail what it sends meanwhile, and a write already sent cannot be
    // safely retried elsewhere. So the process serves on, every answer with `Connection: close`
    // and /health/ready with 503 (isStopping, in the app), then closes.
    setTimeout(close, drainMs);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary is gone gets no more connections: it drains and exits rather than linger.
  if (cluster.isWorker) process.once('disconnect', () => stop('primary gone'));
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // After listening: a process that cannot serve should not deliver either. Not once stopping.
  if (!stopping) deliveries?.start();
  if (!stopping)
    await rosterJobs
      .start()
      .catch((error: unknown) => logger.warn({ err: error }, 'roster imports not swept'));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Workers share one port: the first one speaks for all of them.
  const banner = !cluster.isWorker || cluster.worker?.id === 1;
  if (banner && devSubject) await printDevToken(devSubject, auth, baseUrl);
  else if (banner) console.warn(`\n  Docs:  ${baseUrl}/docs\n`);
  logger.info({ url: baseUrl, database: database.kind, version: VERSION }, `listening on ${baseUrl}`);
}

const config = readConfig();
if (cluster.isPrimary && config.webConcurrency > 1) {
  const logger = createLogger(config.logLevel);
  // The primary answers the scrapes for all its workers, summing their series.
  const metrics =
    config.metrics &&
    (await startMetricsListener({ ...config.metrics, logger, scrape: scrapeCluster() }).catch(
      (error: unknown) => {
        console.error(`could not start: ${(error as Error).message ?? error}`);
        process.exit(1);
      },
    ));
  const graceMs = config.shutdownDrainMs + SHUTDOWN_GRACE_MS;
  const code = await runPrimary({ workers: config.webConcurrency, logger, graceMs });
  await metrics?.close();
  logger.info({ code }, 'stopped');
  process.exit(code);
} else {
  main(config).catch((error: unknown) => {
    console.error(`could not start: ${(error as Error).message ?? error}`);
    process.exit(1);
  });
}
