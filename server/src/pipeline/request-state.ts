import type { TenantAccess } from '../access/decide-access.js';
import type { ScimCaller } from '../access/scim-token.repository.js';
import type { TokenClaims } from '../auth/token-claims.js';
import type { Deadline } from '../http/request-deadline.js';
import type { RequestEnd } from '../http/request-end.js';
import type { Idempotency } from '../idempotency/idempotent-request.js';
import type { Caller } from '../identity/caller.js';

/**
 * What the steps of a route's pipeline learn about its request, for the steps after them and for
 * the handler's context (handlers.ts), which is built from it and typed per kind of route.
 */
export type RequestState = {
  /**
   * Ends once the answer can no longer be this request's own: its deadline answered 503, or the
   * client went away. Work not begun yet is then not begun (a queue left, a transaction not
   * opened), and work under way is rolled back rather than committed.
   */
  end: RequestEnd;
  /** The clock behind the deadline's 503, which a streamed upload stops while its body arrives. */
  deadline?: Deadline;
  /**
   * The route's path parameters, kept by its first step: an error middleware (validation's
   * answer) sees `req.params` empty.
   */
  params?: Record<string, string>;
  /** A verified token's claims, or why the token was refused (answered after the rate limit). */
  claims?: TokenClaims;
  authFailure?: Error;
  /** The caller once read, for the handler and the request log. */
  caller?: Caller;
  /** The access decision taken before the body was read (writes take it again under their lock). */
  access?: TenantAccess;
  /** A SCIM route's request: its errors are answered in the SCIM Error schema (http/error-handler.ts). */
  scim?: true;
  /** The directory a SCIM request comes from, once its token was found live. */
  directory?: ScimCaller;
  /** A POST with an Idempotency-Key: run it (its answer stored), or replay the first answer. */
  idempotency?: Idempotency;
};

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      state: RequestState;
      /** Set by ts-rest on every contract route. */
      tsRestRoute?: { path: string; method: string; metadata?: unknown };
    }
  }
}
