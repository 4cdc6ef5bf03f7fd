import type { Config } from '../config.js';
import { readOrCreateDevSecret } from './dev-secret.js';
import { createTokenVerifier, type VerifierOptions } from './token-verifier.js';

export type ResolvedAuth = VerifierOptions & { generatedSecret: boolean };

/** The configured secret or JWKS; outside production without either, the kept development secret. */
export function resolveAuth(config: Config): ResolvedAuth {
  const { jwtSecret, jwksUrl, issuer, audience } = config.auth;
  if (jwksUrl) return { jwksUrl, issuer, audience, generatedSecret: false };
  if (jwtSecret) return { secret: jwtSecret, issuer, audience, generatedSecret: false };
  if (config.env === 'production') throw new Error('production needs AUTH_JWT_SECRET or AUTH_JWKS_URL');
  return { secret: readOrCreateDevSecret(), issuer, audience, generatedSecret: true };
}

export const verifierFor = (auth: ResolvedAuth) => createTokenVerifier(auth);
