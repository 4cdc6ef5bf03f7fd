import { type AppRoute, checkZodSchema } from '@ts-rest/core';
import type { Request, RequestHandler } from 'express';
import { decideAsCaller } from '../../access/read-as-caller.js';
import type { Admission } from '../../admission/admission.js';
import type { Database } from '../../db/database.js';
import { admitted } from '../admitted.js';
import { requesterOf, tenantOf } from '../requester.js';
import { accessRuleOf } from '../route-kinds.js';

/** What ts-rest is about to check before the body, checked the same way (the path, the query, the headers). */
export function inputIsValid(req: Request): boolean {
  const route = req.tsRestRoute as AppRoute | undefined;
  if (!route) return false;
  return (
    checkZodSchema(req.params, route.pathParams, { passThroughExtraKeys: true }).success &&
    checkZodSchema(req.query, route.query).success &&
    checkZodSchema(req.headers, route.headers, { passThroughExtraKeys: true }).success
  );
}

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** When a request is decided before its body is read, or before its input is answered. */
export const DECIDE_EARLY = {
  /** A change outside a tenant's lock: always, on the caller read now. */
  always: () => true,
  /** A read whose statement cannot be built (its input is not valid): so validation answers only the allowed. */
  inputInvalid: (req: Request) => !inputIsValid(req),
  /**
   * A tenant write decides under its lock. Before that only when it brings a body (never read for a
   * refused caller), an Idempotency-Key (claimed per caller), or input that validation will refuse.
   */
  tenantWrite: (req: Request) =>
    hasBody(req) || req.headers['idempotency-key'] !== undefined || !inputIsValid(req),
} as const;

/**
 * The caller, read on its own (created on first sight), and the access decision on it, before
 * the body is read or the input validated: a caller without rights learns nothing from validation
 * messages and never has its body read. A tenant route whose tenant id is not one is left to
 * validation: it names no tenant to decide on.
 */
export function decideEarly(
  db: Database,
  admission: Admission | undefined,
  when: (req: Request) => boolean,
): RequestHandler {
  return (req, _res, next) => {
    if (!when(req)) return next();
    if (accessRuleOf(req.tsRestRoute) === 'tenantAdmin' && !tenantOf(req)) return next();
    admitted(admission, req, 'read', () => decideAsCaller(db, requesterOf(req))).then(
      ({ caller, access }) => {
        req.state.caller = caller;
        if (access) req.state.access = access;
        next();
      },
      next,
    );
  };
}
