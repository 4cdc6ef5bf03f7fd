import type { Contract, ErrorEnvelope, FieldError, ResponseCode, RouterErrorCodes } from '@tms/contract';

/**
 * The codes each route can answer, by the contract's route names (the client's methods; `me()` is
 * `['me']['get']`): `ErrorCodes['memberships']['update']` is
 * `'LAST_OWNER' | 'PRECONDITION_FAILED' | …`. Derived from the contract (the route's declared codes
 * plus those of its access rule and shape), so it cannot drift from what the server answers.
 */
export type ErrorCodes = RouterErrorCodes<Contract>;

/** What the answer's headers add to its error envelope. */
export type ApiErrorContext = {
  /** The `x-request-id` header, when the envelope has none. */
  requestId?: string;
  /** `Retry-After`, in seconds. */
  retryAfter?: number;
};

/**
 * The service answered with an error envelope. `code` is a ResponseCode, so
 * `if (error.code === 'LAST_OWNER')` narrows, and a switch over it can be exhaustive; over one
 * route's codes with `ApiError<ErrorCodes['memberships']['update']>`.
 */
export class ApiError<C extends ResponseCode = ResponseCode> extends Error {
  override readonly name = 'ApiError';
  readonly code: C;
  readonly status: number;
  /** Quote it when reporting a problem: the service logs it with the request. */
  readonly requestId: string;
  readonly details: FieldError[];
  /** Seconds to wait before trying again, from `Retry-After` (429, 503), once retries gave up. */
  readonly retryAfter: number | undefined;

  constructor(status: number, error: ErrorEnvelope['error'], context: ApiErrorContext = {}) {
    super(error.message);
    this.code = error.code as C;
    this.status = status;
    this.requestId = error.requestId || context.requestId || '';
    this.details = error.details ?? [];
    this.retryAfter = context.retryAfter;
  }
}

/**
 * The request never got an answer from the service: offline, DNS, refused, aborted, or not JSON.
 * `aborted` tells a cancellation by the caller's signal from a failure (its `cause` is the
 * signal's reason).
 */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly aborted: boolean;
  constructor(message: string, options?: { cause?: unknown; aborted?: boolean }) {
    super(message, options);
    this.aborted = options?.aborted ?? false;
  }
}

/**
 * Narrows an unknown error to an ApiError, optionally of one code: `isApiError(error, 'LAST_OWNER')`.
 * Without a code, the type argument names the codes to expect, e.g. those of the route just called:
 * `isApiError<ErrorCodes['memberships']['update']>(error)`.
 */
export function isApiError<C extends ResponseCode>(error: unknown, code?: C): error is ApiError<C> {
  return error instanceof ApiError && (code === undefined || error.code === code);
}
