import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler } from 'express';
import { isDatabaseUnavailable } from '../db/db-errors.js';
import {
  AppError,
  InternalError,
  MethodNotAllowedError,
  ScimError,
  ServiceOverloadedError,
  ServiceUnavailableError,
  TenantBusyError,
  UnauthenticatedError,
  ValidationFailedError,
} from '../errors/index.js';
import type { Logger } from '../logger.js';
import { errorEnvelope } from './error-envelope.js';
import { bodyUnread } from './json-body.js';
import { scimErrorBodyOf } from './scim-error-body.js';
import { validationDetails } from './validation-details.js';

type HttpishError = { status?: unknown; statusCode?: unknown };

/** Errors thrown by express itself, which knows nothing of our codes. */
function fromExpress(error: HttpishError): AppError | undefined {
  const status = error.status ?? error.statusCode;
  // express answers 400 for a path that cannot be percent-decoded.
  if (status === 400) return new ValidationFailedError([{ path: 'params', message: 'not a valid URL path' }]);
  return undefined;
}

function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof RequestValidationError) return new ValidationFailedError(validationDetails(error));
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError();
  if (error && typeof error === 'object') return fromExpress(error as HttpishError);
  return undefined;
}

/** What node may read and drop after a refusal, to keep the connection: a few segments at most. */
const DRAINABLE_BYTES = 16 * 1024;

/**
 * A request turned away for load alone (admission's 429/503) by a caller who may send it: its
 * small body, which is arriving anyway, is dropped by node unread, so that the connection is kept.
 * Under overload a closed connection costs more than the refusal (the client's reconnection, a
 * socket torn down and set up). Any other refusal closes: its caller's body is never taken in.
 */
function drainable(req: Parameters<ErrorRequestHandler>[1], error: AppError | undefined): boolean {
  if (!(error instanceof TenantBusyError || error instanceof ServiceOverloadedError)) return false;
  // A client that waits for `100 Continue` may never send it: what it sends next is another request.
  if (req.headers.expect !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) <= DRAINABLE_BYTES;
}

/** Errors that say when to come back: a rate limit, a tenant or a process shedding load. */
const retryAfterOf = (error: AppError): number | undefined => {
  if (error instanceof ServiceUnavailableError) return 5;
  const seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' ? seconds : undefined;
};

/**
 * At most one warning a second for 503s, with how many were left unsaid: an outage or an overload
 * answers thousands a second, and a log line each would add to the load it reports.
 */
function throttledWarning(logger: Logger) {
  let lastAt = 0;
  let unsaid = 0;
  return (fields: Record<string, unknown>, message: string) => {
    const now = Date.now();
    if (now - lastAt < 1000) {
      unsaid++;
      return;
    }
    logger.warn({ ...fields, ...(unsaid > 0 && { alsoInTheLastSecond: unsaid }) }, message);
    lastAt = now;
    unsaid = 0;
  };
}

/** The one place that turns an error into the error envelope. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  const warnUnavailable = throttledWarning(logger);
  return (error, req, res, _next) => {
    // Already answered (a handler that finished after its deadline): drop the late outcome.
    if (res.headersSent) {
      if (!res.writableEnded) res.destroy();
      logger.debug({ err: error, requestId: req.requestId }, 'late outcome after the answer was sent');
      return;
    }
    let appError: AppError | ScimError | undefined = error instanceof ScimError ? error : toAppError(error);
    // Refused before its body was read: close rather than let node drain it to reuse the connection.
    if (bodyUnread(req) && !drainable(req, appError instanceof ScimError ? undefined : appError))
      res.setHeader('Connection', 'close');
    if (!appError) {
      logger.error(
        { err: error, requestId: req.requestId, method: req.method, path: req.path },
        'unexpected error',
      );
      appError = new InternalError();
    } else if (appError instanceof ServiceUnavailableError) {
      warnUnavailable({ err: error, requestId: req.requestId }, 'service unavailable');
    }
    if (appError instanceof UnauthenticatedError && !req.state?.scim) {
      res.setHeader(
        'WWW-Authenticate',
        req.headers.authorization
          ? 'Bearer error="invalid_token"'
          : 'Bearer realm="tenant-membership-service"',
      );
    }
    if (appError instanceof MethodNotAllowedError) res.setHeader('Allow', appError.allowed.join(', '));
    if (appError instanceof ScimError || req.state?.scim) {
      // A directory's request: its errors in SCIM's schema and media type (RFC 7644 §3.12).
      if (appError instanceof UnauthenticatedError) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
      const retryAfter = appError instanceof ScimError ? undefined : retryAfterOf(appError);
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
      res.setHeader('Content-Type', 'application/scim+json; charset=utf-8');
      res.status(appError.status).json(scimErrorBodyOf(appError));
      return;
    }
    const retryAfter = retryAfterOf(appError);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    res.status(appError.status).json(errorEnvelope(appError, req.requestId));
  };
}
