import { z } from 'zod';
import type { AdmissionSettings } from './admission/admission.js';

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const databaseUrl = optionalString.refine(
  (value) => value === undefined || /^postgres(ql)?:\/\/.+/.test(value),
  'must be a postgres:// or postgresql:// URL',
);

const httpUrl = optionalString.refine(
  (value) => value === undefined || /^https?:\/\/.+/.test(value),
  'must be an http:// or https:// URL',
);

const DURATION = /^(\d+)([smhd]?)$/i;
const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
const MAX_TOKEN_LIFETIME_LIMIT = 30 * 86_400;
/** How long a deleted tenant can be restored, unless TENANT_RETENTION_DAYS says otherwise. */
export const DEFAULT_TENANT_RETENTION_DAYS = 30;

/**
 * AUTH_MAX_TOKEN_LIFETIME: the longest lifetime (exp - iat) of a token accepted, as seconds
 * (`86400`) or a whole number with a unit s, m, h or d (`3600s`, `90m`, `24h`, `1d`); default 24h,
 * at most 30d. It bounds how long a leaked token stays good. Raise it only if the identity
 * provider issues longer-lived access tokens.
 */
const tokenLifetime = optionalString.transform((value, ctx) => {
  if (value === undefined) return 24 * 3600;
  const match = DURATION.exec(value);
  const seconds = match ? Number(match[1]) * (UNIT_SECONDS[(match[2] ?? '').toLowerCase()] ?? 0) : 0;
  if (seconds < 1 || seconds > MAX_TOKEN_LIFETIME_LIMIT) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be seconds or a whole number with s, m, h or d (e.g. 3600, 90m, 24h), from 1s to 30d',
    });
    return z.NEVER;
  }
  return seconds;
});

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce
      .number({ invalid_type_error: 'must be a port number' })
      .int()
      .min(0)
      .max(65535)
      .default(3000),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    // Unset or empty: no metrics listener at all.
    METRICS_PORT: optionalString.pipe(
      z.coerce
        .number({ invalid_type_error: 'must be a port number' })
        .int('must be a port number')
        .min(0, 'must be a port number')
        .max(65535, 'must be a port number')
        .optional(),
    ),
    METRICS_HOST: z.string().trim().min(1).default('127.0.0.1'),
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
    DATABASE_DIRECT_URL: databaseUrl,
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(4000),
    // Unset: half the pool (admission/admission.ts).
    TENANT_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(200).optional(),
    ADMISSION_MAX_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(0),
    PGLITE_DATA_DIR: z.string().trim().min(1).default('.data/pglite'),
    AUTH_JWT_SECRET: optionalString.refine(
      (value) => value === undefined || Buffer.byteLength(value, 'utf8') >= 32,
      'must be at least 32 bytes long',
    ),
    AUTH_JWKS_URL: httpUrl,
    AUTH_ISSUER: optionalString,
    AUTH_AUDIENCE: optionalString,
    AUTH_MAX_TOKEN_LIFETIME: tokenLifetime,
    SUPER_ADMIN_SUBJECTS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((subject) => subject.trim())
          .filter((subject) => subject.length > 0),
      ),
    CORS_ORIGINS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((origin) => origin.trim().replace(/\/+$/, ''))
          .filter((origin) => origin.length > 0),
      )
      .refine(
        (origins) => origins.every((origin) => origin === '*' || /^https?:\/\/[^/\s]+$/.test(origin)),
        'must be comma-separated origins like https://app.example.com, or *',
      ),
    RATE_LIMIT_MAX: z.coerce.number().int().min(0).default(600),
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    TRUST_PROXY: z
      .string()
      .trim()
      .default('false')
      .transform((value): boolean | number | string =>
        value === 'true'
          ? true
          : value === 'false' || value === ''
            ? false
            : /^\d+$/.test(value)
              ? Number(value)
              : value,
      ),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TENANT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_TENANT_RETENTION_DAYS),
    TENANT_PURGE_INTERVAL_MINUTES: z.coerce.number().int().min(0).max(10_080).default(60),
    AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false']).default('false'),
    WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(500),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(4),
    WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  })
  .superRefine((env, ctx) => {
    if (env.AUTH_JWT_SECRET && env.AUTH_JWKS_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTH_JWKS_URL'],
        message: 'set AUTH_JWT_SECRET or AUTH_JWKS_URL, not both',
      });
    }
    if (env.ADMISSION_MAX_WAIT_MS >= env.REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['ADMISSION_MAX_WAIT_MS'],
        message: 'must be shorter than REQUEST_TIMEOUT_MS: a refusal must come well before the deadline',
      });
    }
    if (env.WEB_CONCURRENCY > 1 && !env.DATABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEB_CONCURRENCY'],
        message:
          'more than one process needs PostgreSQL (DATABASE_URL): the embedded PGlite database belongs to one process',
      });
    }
    if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_PORT'],
        message: 'must differ from PORT: the metrics are kept off the public listener',
      });
    }
    if (env.NODE_ENV === 'production' && !env.AUTH_JWT_SECRET && !env.AUTH_JWKS_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTH_JWT_SECRET'],
        message: 'production needs AUTH_JWT_SECRET or AUTH_JWKS_URL',
      });
    }
  });

export type Env = z.infer<typeof EnvSchema>;

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
    auth: {
      jwtSecret: env.AUTH_JWT_SECRET,
      jwksUrl: env.AUTH_JWKS_URL,
      issuer: env.AUTH_ISSUER,
      audience: env.AUTH_AUDIENCE,
      maxTokenLifetimeSeconds: env.AUTH_MAX_TOKEN_LIFETIME,
    },
    superAdminSubjects: env.SUPER_ADMIN_SUBJECTS,
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
