import { lookup } from 'node:dns/promises';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRawClient, type RawClient } from '@tms/client';
import { type AppDeps, createApp } from '../../src/app.js';
import { signDevToken } from '../../src/auth/sign-token.js';
import { createTokenVerifier, type VerifierOptions } from '../../src/auth/token-verifier.js';
import type { Database } from '../../src/db/database.js';
import { envelopeClientErrors } from '../../src/http/client-error.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { Resolver } from '../../src/modules/webhooks/target-address.js';
import { CodeTries } from '../../src/rate-limit/code-tries.js';
import { RateLimiter, type RateLimitSettings } from '../../src/rate-limit/rate-limiter.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export type TestServer = {
  baseUrl: string;
  db: Database;
  database: TestDatabase;
  /** The server's rate limiter, when one is configured, so tests can share its counts on cue. */
  rateLimiter?: RateLimiter;
  /** A typed client; with a subject, it carries a fresh token for that subject. */
  client(token?: string): RawClient;
  token(
    sub: string,
    claims?: { email?: string; emailVerified?: boolean; name?: string; ttl?: string },
  ): Promise<string>;
  close(): Promise<void>;
};

export type TestServerOptions = {
  /** Token verification other than the default HS256 with TEST_SECRET. */
  verifier?: VerifierOptions;
  /** A database other than a fresh test database (e.g. one that fails on purpose). */
  database?: TestDatabase;
  corsOrigins?: string[];
  logger?: Logger;
  requestTimeoutMs?: number;
  /** A rate limiter on this server's database, shared with any other server on it. */
  rateLimit?: RateLimitSettings;
  /** Where webhook endpoints may point; by default as in production, resolving names offline. */
  webhooks?: AppDeps['webhooks'];
  /** Admission other than the default (a test that holds its slots itself). */
  admission?: AppDeps['admission'];
  /** A code-redeeming budget other than the app's default (0: unlimited). */
  codeTriesPerMinute?: number;
};

/**
 * Tests never ask the network's DNS: `localhost` is resolved by the system (from /etc/hosts, no
 * packet sent), any other name does not resolve (a registration then accepts it, unchecked, as
 * it does a name not yet in DNS). A test that needs a name to resolve passes a resolver of its own.
 */
export const offlineResolver: Resolver = async (host) => {
  if (host === 'localhost') return lookup(host, { all: true, verbatim: true });
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

/** The real app on a real database, listening on a free port: tests go through HTTP. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const rateLimiter = options.rateLimit ? new RateLimiter(database.db, options.rateLimit) : undefined;
  rateLimiter?.start();
  const app = createApp({
    db: database.db,
    verifyToken: createTokenVerifier(options.verifier ?? { secret: TEST_SECRET }),
    logger: options.logger ?? createLogger(process.env.LOG_LEVEL ?? 'silent'),
    version: 'test',
    corsOrigins: options.corsOrigins,
    requestTimeoutMs: options.requestTimeoutMs,
    rateLimiter,
    ...(options.admission && { admission: options.admission }),
    ...(options.codeTriesPerMinute !== undefined && {
      codeTries: CodeTries.create(database.db, options.codeTriesPerMinute),
    }),
    webhooks: {
      allowPrivateNetworks: false,
      requireHttps: false,
      ...options.webhooks,
      resolve: options.webhooks?.resolve ?? offlineResolver,
    },
  });
  const server: Server = createHttpServer(app).listen(0, '127.0.0.1');
  envelopeClientErrors(server);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    db: database.db,
    database,
    rateLimiter,
    client: (token) => createRawClient({ baseUrl, token }),
    token: (sub, claims = {}) => signDevToken(TEST_SECRET, { sub, ...claims }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rateLimiter?.stop();
      if (!options.database) await database.close();
    },
  };
}
