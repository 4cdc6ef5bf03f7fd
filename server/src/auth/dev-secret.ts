import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const DEV_SECRET_FILE = '.data/auth-jwt-secret';

/**
 * Outside production a bare `npm start` must work, so a secret is made once and kept beside the
 * embedded database: tokens minted by `npm run token` keep working across restarts.
 */
export function readOrCreateDevSecret(file = DEV_SECRET_FILE): string {
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(secret) >= 32) return secret;
  }
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
