import type { ScimErrorType } from '@tms/contract';

/**
 * A refusal of a SCIM request (RFC 7644 §3.12): answered in the SCIM Error schema, with its
 * status and, where the RFC defines one, its scimType. Not an AppError: a directory reads
 * `status` and `scimType`, none of the API's codes (http/error-handler.ts renders both kinds).
 */
export class ScimError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 412 | 413 | 415 | 501,
    readonly scimType: ScimErrorType | undefined,
    detail: string,
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = limit;
    this.name = 'ScimError';
  }
}

export const scimNotFound = (what: string) => new ScimError(404, undefined, `${what} not found`);
export const scimInvalid = (detail: string) => new ScimError(400, 'invalidValue', detail);
