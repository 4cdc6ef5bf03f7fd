import type { Config } from '../config.js';
import { readOrCreateDevSecret } from './dev-secret.js';
import type { VerifierOptions } from './token-verifier.js';

export type ResolvedAuth = VerifierOptions;

/** The configured secret or JWKS; outside production without either, the kept development secret. */
export function resolveAuth(config: Config): ResolvedAuth {
  const { jwtSecret, jwksUrl, issuer, audience, maxTokenLifetimeSeconds } = config.auth;
  const rules = { issuer, audience, maxLifetimeSeconds: maxTokenLifetimeSeconds };
  if (jwksUrl) return { jwksUrl, ...rules };
  if (jwtSecret) return { secret: jwtSecret, ...rules };
  if (config.env === 'production') throw new Error('production needs AUTH_JWT_SECRET or AUTH_JWKS_URL');
  return { secret: readOrCreateDevSecret(), ...rules };
}
