import type { Caller } from '../auth/identity.service.js';
import type { TokenClaims } from '../auth/token-verifier.js';
import type { TenantAccess } from '../modules/memberships/tenant-access.service.js';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      /** A verified token's claims, or why the token was refused (answered after the rate limit). */
      authClaims?: TokenClaims;
      authFailure?: Error;
      caller?: Caller;
      tenantAccess?: TenantAccess;
      /** Set by ts-rest on every contract route. */
      tsRestRoute?: { path: string; method: string; metadata?: unknown };
    }
  }
}

/** The authenticated caller; the authenticate middleware guarantees it on every non-public route. */
export function callerOf(req: { caller?: Caller }): Caller {
  if (!req.caller) throw new Error('callerOf used on a route without authentication');
  return req.caller;
}

/** The caller's rights in the URL's tenant, settled by the tenant-admin guard. */
export function tenantAccessOf(req: { tenantAccess?: TenantAccess }): TenantAccess {
  if (!req.tenantAccess) throw new Error('tenantAccessOf used on a route without the tenant guard');
  return req.tenantAccess;
}
