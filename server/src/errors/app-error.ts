import { type FieldError, HTTP_STATUS, type ResponseCode } from '@tms/contract';

/**
 * The base of every error the service answers on purpose. Each subclass fixes its ResponseCode;
 * the HTTP status always comes from the contract's one map, so the two can never disagree.
 */
export abstract class AppError extends Error {
  abstract readonly code: ResponseCode;
  readonly details?: FieldError[];

  constructor(message: string, details?: FieldError[]) {
    // An answer, not a fault: its stack would be captured for nothing (and refusals under
    // overload are thousands a second). What caused a 503 is logged from its cause.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = new.target.name;
    this.details = details;
  }

  get status(): number {
    return HTTP_STATUS[this.code];
  }
}
