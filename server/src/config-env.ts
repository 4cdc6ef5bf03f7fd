import { z } from 'zod';

/*
 * The environment the service reads, variable by variable, with each one's default and check:
 * parsed once, by config.ts (loadConfig), into the Config the rest of the service is given.
 */

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

export const EnvSchema = z
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
    // Unset: half the pool (admission/admission-settings.ts).
    TENANT_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(200).optional(),
    ADMISSION_MAX_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(0),
    // At least 2 s: the announcement is whole seconds, and clients drop an idle connection a second
    // before it (node's agent would not keep one at all under 2).
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(2000).max(600_000).default(5000),
    PGLITE_DATA_DIR: z.string().trim().min(1).default('.data/pglite'),
    AUTH_JWT_SECRET: optionalString.refine(
      (value) => value === undefined || Buffer.byteLength(value, 'utf8') >= 32,
      'must be at least 32 bytes long',
    ),
    AUTH_JWKS_URL: httpUrl,
    CODE_SECRET: optionalString.refine(
      (value) => value === undefined || Buffer.byteLength(value, 'utf8') >= 32,
      'must be at least 32 bytes long',
    ),
    CODE_TRIES_PER_MINUTE: z.coerce.number().int().min(0).max(10_000).default(10),
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
    if (env.NODE_ENV === 'production' && env.AUTH_JWKS_URL && !env.CODE_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['CODE_SECRET'],
        message:
          'production with AUTH_JWKS_URL needs CODE_SECRET: the key that join and pairing codes are kept under',
      });
    }
  });

export type Env = z.infer<typeof EnvSchema>;
