import type { ResponseCode } from '@tms/contract';
import * as access from './access-errors.js';
import type { AppError } from './app-error.js';
import * as conflict from './conflict-errors.js';
import * as notFound from './not-found-errors.js';
import * as request from './request-errors.js';
import * as server from './server-errors.js';

/**
 * One example of each code's error class. The compiler refuses a code without its class, and a
 * test checks that each class carries its own code and the contract's status.
 */
export const ERROR_EXAMPLES = {
  VALIDATION_FAILED: () => new request.ValidationFailedError([{ path: 'body.name', message: 'Required' }]),
  INVALID_JSON: () => new request.InvalidJsonError(),
  TENANT_ID_MISMATCH: () => new request.TenantIdMismatchError(),
  UNAUTHENTICATED: () => new access.UnauthenticatedError(),
  SUPER_ADMIN_REQUIRED: () => new access.SuperAdminRequiredError(),
  TENANT_ACCESS_DENIED: () => new access.TenantAccessDeniedError(),
  INSUFFICIENT_ROLE: () => new access.InsufficientRoleError(),
  ROLE_HIERARCHY_VIOLATION: () => new access.RoleHierarchyViolationError(),
  TENANT_NOT_FOUND: () => new notFound.TenantNotFoundError('t'),
  MEMBERSHIP_NOT_FOUND: () => new notFound.MembershipNotFoundError('m'),
  USER_NOT_FOUND: () => new notFound.UserNotFoundError('u'),
  ROUTE_NOT_FOUND: () => new request.RouteNotFoundError('GET', '/nowhere'),
  METHOD_NOT_ALLOWED: () => new request.MethodNotAllowedError('PUT', ['GET']),
  TENANT_SLUG_TAKEN: () => new conflict.TenantSlugTakenError('acme'),
  MEMBERSHIP_ALREADY_EXISTS: () => new conflict.MembershipAlreadyExistsError(),
  LAST_OWNER: () => new conflict.LastOwnerError(),
  PRECONDITION_FAILED: () => new conflict.PreconditionFailedError(1),
  IDEMPOTENCY_KEY_IN_FLIGHT: () => new conflict.IdempotencyKeyInFlightError(),
  IDEMPOTENCY_KEY_REUSED: () => new conflict.IdempotencyKeyReusedError(),
  RATE_LIMITED: () => new access.RateLimitedError(30),
  PAYLOAD_TOO_LARGE: () => new request.PayloadTooLargeError('100kb'),
  UNSUPPORTED_MEDIA_TYPE: () => new request.UnsupportedMediaTypeError(),
  INTERNAL_ERROR: () => new server.InternalError(),
  SERVICE_UNAVAILABLE: () => new server.ServiceUnavailableError(),
} satisfies Record<ResponseCode, () => AppError>;
