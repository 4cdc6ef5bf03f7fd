import { isTenantRule } from '@tms/contract';
import type { Request, RequestHandler } from 'express';
import { decideAsCaller } from '../../access/read-as-caller.js';
import type { Admission } from '../../admission/admission.js';
import type { Database } from '../../db/database.js';
import { bodyOnItsWay } from '../../http/json-body.js';
import type { AtSignIn } from '../../identity/identify.js';
import { admitted } from '../admitted.js';
import { requesterOf, tenantOf } from '../requester.js';
import { accessRuleOf } from '../route-kinds.js';

/** When a request is decided before its body is read. */
export const DECIDE_EARLY = {
  /** A change outside a tenant's lock: always, on the caller read now. */
  always: () => true,
  /**
   * A tenant write decides under its lock. Before that only while its body is still on its way
   * (nothing is held, and nothing waited for, for a refused caller) or when it brings an
   * Idempotency-Key (claimed per caller). A body that came whole with the headers (a small JSON
   * body, as clients send it) is in memory already: reading the caller for it on its own would
   * cost a statement and a round trip for what the lock's round trip reads anyway.
   */
  tenantWrite: (req: Request) => bodyOnItsWay(req) || req.headers['idempotency-key'] !== undefined,
} as const;

/**
 * The caller, read on its own (created on first sight), and the access decision on it, before
 * the body is read: a caller without rights never has its body read. A tenant route whose tenant
 * id is not one is left to validation: it names no tenant to decide on.
 */
export function decideEarly(deps: Deciding, when: (req: Request) => boolean): RequestHandler {
  return (req, _res, next) => {
    if (!when(req)) return next();
    decided(deps, req).then(() => next(), next);
  };
}

/**
 * ts-rest's answer to input that fails the contract, given only once access is decided: a caller
 * without rights learns nothing from validation messages (not even what a valid request looks
 * like). A request already decided (a write, before its body) answers at once; any other (a read,
 * whose statement could not be built; a bodiless tenant write) has its caller read and decided
 * first, and is refused if it may not call.
 */
export function decideBeforeValidationAnswers(deps: Deciding) {
  return (error: unknown, req: Request, _res: unknown, next: (error?: unknown) => void): void => {
    if (accessRuleOf(req.tsRestRoute) === 'public') next(error);
    else passOnceDecided(deps, req, error, next);
  };
}

/**
 * A body step whose refusal (415, 413, 400 INVALID_JSON) is given only once access is decided, as
 * the contract's validation is: the order of refusals does not depend on whether the body came
 * with its headers. For a tenant write not decided before its body (DECIDE_EARLY.tenantWrite).
 */
export function decideBeforeBodyRefusals(deps: Deciding, body: RequestHandler): RequestHandler {
  return (req, res, next) => {
    body(req, res, (error?: unknown) => {
      if (error === undefined || error === null) next();
      else passOnceDecided(deps, req, error, next);
    });
  };
}

/** `error` passed on once the caller is decided; the refusal instead if it may not call. */
function passOnceDecided(
  deps: Deciding,
  req: Request,
  error: unknown,
  next: (error?: unknown) => void,
): void {
  if (req.state.caller) next(error);
  else decided(deps, req).then(() => next(error), next);
}

/** What deciding early works with: the database, its admission, and what a new verified address sets off. */
export type Deciding = { db: Database; admission?: Admission | undefined; atSignIn?: AtSignIn | undefined };

/** The caller read and access decided now, unless that was done before the body. */
export async function decided(deps: Deciding, req: Request): Promise<void> {
  if (req.state.caller) return;
  const { db, admission, atSignIn } = deps;
  if (isTenantRule(accessRuleOf(req.tsRestRoute)) && !tenantOf(req)) return;
  const { caller, access } = await admitted(admission, req, 'read', () =>
    decideAsCaller(db, requesterOf(req, atSignIn)),
  );
  req.state.caller = caller;
  if (access) req.state.access = access;
}
