import type { RequestHandler } from 'express';
import type { Admission } from '../admission/admission.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { Database } from '../db/database.js';
import { jsonBody, jsonBodyOf, SCIM_BODY } from '../http/json-body.js';
import { pauseDeadlineWhileBodyArrives } from '../http/request-deadline.js';
import type { AtSignIn } from '../identity/identify.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { RouteKind } from './route-kinds.js';
import { DECIDE_EARLY, decideBeforeBodyRefusals, decideEarly } from './steps/decide-early.js';
import { claimIdempotencyKey } from './steps/idempotency-key.js';
import { limitRate } from './steps/limit-rate.js';
import { shed } from './steps/shed.js';
import { tenantHeaderMatchesUrl } from './steps/tenant-header.js';
import { limitDirectoryRate, verifyScimToken } from './steps/verify-scim-token.js';
import { verifyToken } from './steps/verify-token.js';

export type PipelineDeps = {
  db: Database;
  /** Where downloads read (db/client.ts: the long pool); default `db`. */
  long?: Database;
  /** How many downloads at once (admission/admission-settings.ts: DOWNLOADS). */
  downloads?: Admission;
  verifyToken: TokenVerifier;
  rateLimiter?: RateLimiter;
  admission?: Admission;
  /** What a caller's new verified address sets off (identity/identify.ts: AtSignIn; app.ts gives it). */
  atSignIn?: AtSignIn;
};

/**
 * The steps each kind of route goes through before its handler, in order; then ts-rest validates
 * the input against the contract, and the handler runs (build-router.ts). Refusals come in this
 * order: how often you call (429), who you are (401), whether the request contradicts its URL
 * (400), whether there is room for it now (429/503: shed.ts), whether you may (403/404), then the
 * body (415/413/400) and the contract's validation (whose refusals wait for the access decision:
 * steps/decide-early.ts, decideBeforeBodyRefusals and decideBeforeValidationAnswers).
 * No step holds anything while the body arrives: the database work of a step runs in an admission
 * slot of its own (admitted.ts), and a write's transaction begins in its handler.
 */
export function pipelines(deps: PipelineDeps): Record<RouteKind, RequestHandler[]> {
  const { db, admission } = deps;
  const caller = [verifyToken(deps.verifyToken), limitRate(deps.rateLimiter), tenantHeaderMatchesUrl];
  const key = claimIdempotencyKey(db, admission);
  return {
    public: [],
    read: [...caller, shed(admission, 'read')],
    write: [...caller, shed(admission, 'read'), decideEarly(deps, DECIDE_EARLY.always), key, jsonBody],
    tenantWrite: [
      ...caller,
      shed(admission, 'write'),
      decideEarly(deps, DECIDE_EARLY.tenantWrite),
      key,
      decideBeforeBodyRefusals(deps, jsonBody),
    ],
    upload: [
      ...caller,
      shed(admission, 'write'),
      decideEarly(deps, DECIDE_EARLY.always),
      key,
      pauseDeadlineWhileBodyArrives,
    ],
    scim: [
      verifyScimToken(db, admission),
      limitDirectoryRate(deps.rateLimiter),
      shed(admission, 'write'),
      jsonBodyOf(SCIM_BODY),
    ],
  };
}
