import type { Config } from '../config.js';
import type { ResolvedAuth } from './auth-setup.js';
import { CodeKeys } from './code-keys.js';
import { readOrCreateDevSecret } from './dev-secret.js';

/** CODE_SECRET, else the token secret; a JWKS outside production falls back to the kept dev secret. */
export function resolveCodeKeys(config: Config, auth: ResolvedAuth): CodeKeys {
  if (config.codeSecret) return new CodeKeys(config.codeSecret);
  if ('secret' in auth) return new CodeKeys(auth.secret);
  if (config.env === 'production') throw new Error('production with AUTH_JWKS_URL needs CODE_SECRET');
  return new CodeKeys(readOrCreateDevSecret());
}
