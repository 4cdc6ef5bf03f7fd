import type { FieldError } from '@tms/contract';
import { AppError } from './app-error.js';

export class ValidationFailedError extends AppError {
  readonly code = 'VALIDATION_FAILED';
  constructor(details: FieldError[], message = 'The request is not valid') {
    super(message, details);
  }
}

export class InvalidJsonError extends AppError {
  readonly code = 'INVALID_JSON';
  constructor() {
    super('The request body is not valid JSON');
  }
}

export class TenantIdMismatchError extends AppError {
  readonly code = 'TENANT_ID_MISMATCH';
  constructor() {
    super('The x-tenant-id header differs from the tenant in the URL');
  }
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(limit: string) {
    super(`The request body is larger than ${limit}`);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  constructor(message = 'The request body must be application/json') {
    super(message);
  }
}

export class RouteNotFoundError extends AppError {
  readonly code = 'ROUTE_NOT_FOUND';
  constructor(method: string, path: string) {
    super(`No route ${method} ${path}`);
  }
}

export class MethodNotAllowedError extends AppError {
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(
    method: string,
    readonly allowed: string[],
  ) {
    super(`${method} is not allowed here; allowed: ${allowed.join(', ')}`);
  }
}
