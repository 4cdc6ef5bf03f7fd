import type { Caller } from '../access/caller.js';
import { type AccessFacts, accessRuleOf, type TenantAccess } from '../access/decide-access.js';
import type { Requester } from '../access/read-as-caller.js';
import type { TokenClaims } from '../auth/token-verifier.js';
import type { Transaction } from '../db/database.js';
import type { Idempotency } from '../idempotency/idempotent-request.js';
import type { AuditContext } from '../modules/audit/audit-context.js';
import type { RequestTransaction } from './request-transaction.js';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      /** A verified token's claims, or why the token was refused (answered after the rate limit). */
      authClaims?: TokenClaims;
      authFailure?: Error;
      caller?: Caller;
      /** What a read found about the caller and the URL's tenant, with the caller, for the decision. */
      accessFacts?: AccessFacts;
      /** The decision on a tenant route: the caller's rights in the URL's tenant. */
      tenantAccess?: TenantAccess;
      /** A write under a tenant: the transaction its access was decided in, and its change runs in. */
      transaction?: RequestTransaction;
      /** A read whose caller is looked up with its data, in its one statement (see load-caller.ts). */
      readsWithCaller?: boolean;
      /** A POST with an Idempotency-Key: run it (and store its answer), or replay the first answer. */
      idempotency?: Idempotency;
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

/** Who changes something, and on which request: what the change's audit event records. */
export function auditContextOf(req: { caller?: Caller; requestId: string }): AuditContext {
  const { userId, subject, isSuperAdmin } = callerOf(req);
  return { actor: { userId, subject, isSuperAdmin }, requestId: req.requestId };
}

/** The caller's rights in the URL's tenant, settled by the access decision. */
export function tenantAccessOf(req: { tenantAccess?: TenantAccess }): TenantAccess {
  if (!req.tenantAccess) throw new Error('tenantAccessOf used on a route without the tenant guard');
  return req.tenantAccess;
}

/** The transaction of a write under a tenant, opened where its access was decided. */
export function transactionOf(req: { transaction?: RequestTransaction }): Transaction {
  if (!req.transaction) throw new Error('transactionOf used on a route that is not a tenant write');
  return req.transaction.tx;
}

/**
 * Who asks, for a read that looks its caller up in its own statement: the token's claims, the
 * route's rule and the URL's tenant; the caller found is kept for the request log.
 */
export function requesterOf(req: Express.Request & { params: Record<string, string> }): Requester {
  if (!req.authClaims) throw new Error('requesterOf used on a route without authentication');
  const rule = accessRuleOf(req.tsRestRoute);
  return {
    claims: req.authClaims,
    rule,
    ...(rule === 'tenantAdmin' ? { tenantId: req.params.tenantId } : {}),
    identified: (caller) => {
      req.caller = caller;
    },
  };
}
