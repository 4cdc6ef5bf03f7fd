import type { ErrorEnvelope, FieldError, ResponseCode } from '@tms/contract';

/**
 * The service answered with an error envelope. `code` is a ResponseCode, so
 * `if (error.code === 'LAST_OWNER')` narrows, and a switch over it can be exhaustive.
 */
export class ApiError<C extends ResponseCode = ResponseCode> extends Error {
  override readonly name = 'ApiError';
  readonly code: C;
  readonly status: number;
  readonly requestId: string;
  readonly details: FieldError[];

  constructor(status: number, error: ErrorEnvelope['error']) {
    super(error.message);
    this.code = error.code as C;
    this.status = status;
    this.requestId = error.requestId;
    this.details = error.details ?? [];
  }
}

/** The request never got an answer from the service: offline, DNS, refused, aborted, or not JSON. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Narrows an unknown error to an ApiError, optionally of one code. */
export function isApiError<C extends ResponseCode>(error: unknown, code?: C): error is ApiError<C> {
  return error instanceof ApiError && (code === undefined || error.code === code);
}
