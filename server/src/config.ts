import type { AdmissionSettings } from './admission/admission-settings.js';
import { type Env, EnvSchema } from './config-env.js';

export { DEFAULT_TENANT_RETENTION_DAYS, type Env } from './config-env.js';

export type DatabaseConfig =
  | {
      kind: 'postgres';
      url: string;
      poolSize: number;
      /**
       * 'transaction': DATABASE_URL is a pooler in transaction mode (PgBouncer, Supabase, Neon, RDS
       * Proxy): no named prepared statements, no startup parameters, timeouts set per transaction.
       */
      pooler?: 'transaction';
      /** Where the migrations run (DATABASE_DIRECT_URL): the database itself, past the pooler. */
      directUrl?: string;
    }
  | { kind: 'pglite'; dataDir: string };

export type Config = {
  env: Env['NODE_ENV'];
  port: number;
  host: string;
  /**
   * METRICS_PORT, METRICS_HOST: where `GET /metrics` listens, apart from the API. Absent: no metrics
   * at all (nothing recorded, no listener). In a cluster, the primary listens for all its workers.
   */
  metrics?: { port: number; host: string };
  /** Server processes (node:cluster workers) on this machine; more than one only on PostgreSQL. */
  webConcurrency: number;
  database: DatabaseConfig;
  /** Past this, a request answers 503 rather than wait on a database that does not answer. */
  requestTimeoutMs: number;
  /**
   * SHUTDOWN_DRAIN_MS: after SIGTERM, how long the process keeps serving while `/health/ready`
   * answers 503, before it stops accepting connections. A load balancer keeps sending requests
   * until its health checks have failed enough times; set this above its interval x fall (0: none).
   */
  shutdownDrainMs: number;
  /**
   * HTTP_KEEP_ALIVE_TIMEOUT_MS: how long an idle client connection is announced to be kept
   * (`Keep-Alive: timeout=`, whole seconds); node closes it a second later. Above a load balancer's
   * own idle timeout, so that the balancer, not the service, closes an idle connection.
   */
  keepAliveTimeoutMs: number;
  /** Without a secret or a JWKS, development uses a generated secret: see auth/dev-secret.ts. */
  auth: {
    jwtSecret?: string;
    jwksUrl?: string;
    issuer?: string;
    audience?: string;
    /** Tokens with a longer lifetime (exp - iat) are refused: AUTH_MAX_TOKEN_LIFETIME. */
    maxTokenLifetimeSeconds: number;
  };
  superAdminSubjects: string[];
  /**
   * CODE_SECRET: the key join and pairing codes are kept under (auth/code-keys.ts). Unset: the
   * token secret (AUTH_JWT_SECRET, or development's kept one); production with a JWKS must set it.
   */
  codeSecret?: string;
  /** CODE_TRIES_PER_MINUTE: code redemptions per caller and per address a minute; 0: no limit. */
  codeTriesPerMinute: number;
  /**
   * How much database work each process admits at once: as many requests as the pool has
   * connections, at most TENANT_MAX_CONCURRENCY of them (half the pool by default) for one tenant,
   * three writes of one tenant; a request waits ADMISSION_MAX_WAIT_MS at most for its turn.
   */
  admission: AdmissionSettings;
  /** Browser origins allowed to call the API; empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Requests per caller and window; undefined when RATE_LIMIT_MAX is 0 (no limit). */
  rateLimit?: { max: number; windowSeconds: number };
  trustProxy: boolean | number | string;
  logLevel: Env['LOG_LEVEL'];
  tenants: {
    /** A deleted tenant can be restored for this long, then the purge removes it for good. */
    retentionDays: number;
    /** How often each server process runs the purge; 0: never (run `npm run purge` instead). */
    purgeIntervalMinutes: number;
  };
  /** Audit events older than this many days are removed by the periodic purge (and `npm run purge`). */
  auditRetentionDays: number;
  webhooks: {
    /**
     * Deliver to (and register) loopback, private and link-local addresses, and plain HTTP in
     * production: for tests and local development only.
     */
    allowPrivateNetworks: boolean;
    /** HTTPS only: production, unless private networks are allowed. */
    requireHttps: boolean;
    /** How often each process looks for due deliveries; 0: this process never delivers. */
    pollIntervalMs: number;
    /** Endpoints this process delivers to at once (one delivery in flight per endpoint). */
    concurrency: number;
  };
};

/**
 * A tenant's writes wait for its row lock one after the other: with a few in flight, the next one
 * is ready the moment the lock frees; more would only hold connections while they wait. (Three
 * served the burst of bench:overload a little better than two.)
 */
const TENANT_WRITES_AT_ONCE = 3;

export class ConfigError extends Error {
  constructor(readonly lines: string[]) {
    super(`invalid configuration:\n${lines.map((line) => `  ${line}`).join('\n')}`);
  }
}

/** The only reader of the environment. Every bad variable is reported, one line each. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'environment');
        const value = source[name];
        const shown = value === undefined || name.includes('SECRET') ? '' : ` (got "${value}")`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  const env = parsed.data;
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    ...(env.METRICS_PORT !== undefined && { metrics: { port: env.METRICS_PORT, host: env.METRICS_HOST } }),
    webConcurrency: env.WEB_CONCURRENCY,
    database: env.DATABASE_URL
      ? {
          kind: 'postgres',
          url: env.DATABASE_URL,
          poolSize: env.DATABASE_POOL_SIZE,
          ...(env.DATABASE_POOLER === 'transaction' && { pooler: 'transaction' as const }),
          ...(env.DATABASE_DIRECT_URL && { directUrl: env.DATABASE_DIRECT_URL }),
        }
      : { kind: 'pglite', dataDir: env.PGLITE_DATA_DIR },
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    admission: {
      slots: env.DATABASE_POOL_SIZE,
      share: Math.min(
        env.DATABASE_POOL_SIZE,
        env.TENANT_MAX_CONCURRENCY ?? Math.ceil(env.DATABASE_POOL_SIZE / 2),
      ),
      writes: TENANT_WRITES_AT_ONCE,
      maxWaitMs: env.ADMISSION_MAX_WAIT_MS,
      // Database work held longer than a request may wait for its turn is waiting on a database
      // that does not answer in time: the service's takes milliseconds (only a write waiting for
      // a tenant that a roster import holds takes longer, up to lock_timeout). A request that
      // would wait behind it learns so at once.
      slowAfterMs: env.ADMISSION_MAX_WAIT_MS,
    },
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    auth: {
      jwtSecret: env.AUTH_JWT_SECRET,
      jwksUrl: env.AUTH_JWKS_URL,
      issuer: env.AUTH_ISSUER,
      audience: env.AUTH_AUDIENCE,
      maxTokenLifetimeSeconds: env.AUTH_MAX_TOKEN_LIFETIME,
    },
    superAdminSubjects: env.SUPER_ADMIN_SUBJECTS,
    ...(env.CODE_SECRET && { codeSecret: env.CODE_SECRET }),
    codeTriesPerMinute: env.CODE_TRIES_PER_MINUTE,
    corsOrigins: env.CORS_ORIGINS,
    rateLimit:
      env.RATE_LIMIT_MAX > 0
        ? { max: env.RATE_LIMIT_MAX, windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS }
        : undefined,
    trustProxy: env.TRUST_PROXY,
    logLevel: env.LOG_LEVEL,
    tenants: {
      retentionDays: env.TENANT_RETENTION_DAYS,
      purgeIntervalMinutes: env.TENANT_PURGE_INTERVAL_MINUTES,
    },
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    webhooks: {
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
      requireHttps: env.NODE_ENV === 'production' && env.WEBHOOK_ALLOW_PRIVATE_NETWORKS !== 'true',
      pollIntervalMs: env.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: env.WEBHOOK_CONCURRENCY,
    },
  };
}
