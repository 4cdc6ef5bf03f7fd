import { isTenantRule } from '@tms/contract';
import type { Request } from 'express';
import type { Requester } from '../access/read-as-caller.js';
import type { AtSignIn } from '../identity/identify.js';
import type { AuditContext } from '../modules/audit/audit-context.js';
import { isUuid } from '../uuid.js';
import { accessRuleOf } from './route-kinds.js';

/** The route's path parameters, wherever the request is (an error middleware sees none of its own). */
const paramsOf = (req: Request): Record<string, string | undefined> => req.state.params ?? req.params;

/**
 * Who asks, as the access decision needs to know: the token's claims, the route's rule and the
 * URL's tenant. The caller found is kept on the request (the log names it). `atSignIn`: what a
 * new verified address sets off, should this request identify the caller. Only for routes past
 * the token's check (limit-rate.ts answers every request without claims).
 */
export function requesterOf(req: Request, atSignIn?: AtSignIn): Requester {
  const { claims } = req.state;
  if (!claims) throw new Error('a route past the token check without claims');
  const rule = accessRuleOf(req.tsRestRoute);
  return {
    claims,
    rule,
    ...(atSignIn && { atSignIn, requestId: req.requestId }),
    ...(isTenantRule(rule) ? { tenantId: paramsOf(req).tenantId } : {}),
    identified: (caller) => {
      req.state.caller = caller;
    },
  };
}

/** The URL's tenant, when the route is a tenant's and the id one (a malformed id names none). */
export function tenantOf(req: Request): string | undefined {
  const tenantId = paramsOf(req).tenantId;
  const rule = accessRuleOf(req.tsRestRoute);
  return (isTenantRule(rule) || rule === 'scimToken') && tenantId && isUuid(tenantId) ? tenantId : undefined;
}

/** Who makes a change, and on which request: what its audit event records. */
export const auditContextOf = (
  caller: { userId: string; subject: string; isSuperAdmin: boolean },
  requestId: string,
): AuditContext => ({
  actor: { userId: caller.userId, subject: caller.subject, isSuperAdmin: caller.isSuperAdmin },
  requestId,
});
