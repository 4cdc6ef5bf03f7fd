import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler } from 'express';
import { isDatabaseUnavailable } from '../db/db-errors.js';
import {
  AppError,
  InternalError,
  MethodNotAllowedError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthenticatedError,
  ValidationFailedError,
} from '../errors/index.js';
import type { Logger } from '../logger.js';
import { errorEnvelope } from './error-envelope.js';
import { bodyUnread } from './json-body.js';
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

/** The one place that turns an error into the error envelope. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    // Already answered (a handler that finished after its deadline): drop the late outcome.
    if (res.headersSent) {
      if (!res.writableEnded) res.destroy();
      logger.debug({ err: error, requestId: req.requestId }, 'late outcome after the answer was sent');
      return;
    }
    // Refused before its body was read: close rather than let node drain it to reuse the connection.
    if (bodyUnread(req)) res.setHeader('Connection', 'close');
    let appError = toAppError(error);
    if (!appError) {
      logger.error(
        { err: error, requestId: req.requestId, method: req.method, path: req.path },
        'unexpected error',
      );
      appError = new InternalError();
    } else if (appError instanceof ServiceUnavailableError) {
      logger.warn({ err: error, requestId: req.requestId }, 'service unavailable');
    }
    if (appError instanceof UnauthenticatedError) {
      res.setHeader(
        'WWW-Authenticate',
        req.headers.authorization
          ? 'Bearer error="invalid_token"'
          : 'Bearer realm="tenant-membership-service"',
      );
    }
    if (appError instanceof MethodNotAllowedError) res.setHeader('Allow', appError.allowed.join(', '));
    if (appError instanceof ServiceUnavailableError) res.setHeader('Retry-After', '5');
    if (appError instanceof RateLimitedError)
      res.setHeader('Retry-After', String(appError.retryAfterSeconds));
    res.status(appError.status).json(errorEnvelope(appError, req.requestId));
  };
}
