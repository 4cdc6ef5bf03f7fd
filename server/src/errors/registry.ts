import type { ResponseCode } from '@tms/contract';
import * as access from './access-errors.js';
import type { AppError } from './app-error.js';
import * as conflict from './conflict-errors.js';
import * as domain from './domain-errors.js';
import * as guardian from './guardian-errors.js';
import * as joining from './join-errors.js';
import * as notFound from './not-found-errors.js';
import * as request from './request-errors.js';
import * as server from './server-errors.js';

/**
 * One example of each code's error class, as the server would raise it. The compiler refuses a
 * code without its class; a test checks that each class carries its own code and the contract's
 * status; the OpenAPI document shows these as its error examples.
 */
export const ERROR_EXAMPLES = {
  VALIDATION_FAILED: () =>
    new request.ValidationFailedError([
      {
        path: 'body.slug',
        message: 'lowercase letters, digits and "-", starting and ending with a letter or digit',
      },
    ]),
  INVALID_JSON: () => new request.InvalidJsonError(),
  TENANT_ID_MISMATCH: () => new request.TenantIdMismatchError(),
  UNAUTHENTICATED: () => new access.UnauthenticatedError(),
  SUPER_ADMIN_REQUIRED: () => new access.SuperAdminRequiredError(),
  TENANT_ACCESS_DENIED: () => new access.TenantAccessDeniedError(),
  INSUFFICIENT_ROLE: () => new access.InsufficientRoleError(),
  ROLE_HIERARCHY_VIOLATION: () => new access.RoleHierarchyViolationError(),
  TENANT_NOT_FOUND: () => new notFound.TenantNotFoundError('01955b12-0535-7604-963c-bac14605396b'),
  MEMBERSHIP_NOT_FOUND: () => new notFound.MembershipNotFoundError('0195609b-8d70-796c-9954-6a8639bab893'),
  USER_NOT_FOUND: () => new notFound.UserNotFoundError('019566bd-2f07-726d-9713-1d4febc2e113'),
  STUDENT_NOT_FOUND: () => new guardian.StudentNotFoundError('0195609b-8d70-796c-9954-6a8639bab893'),
  GUARDIAN_LINK_NOT_FOUND: () =>
    new guardian.GuardianLinkNotFoundError('019a8c2e-4b1d-7c3e-9f0a-5d6e7f809a1c'),
  PAIRING_CODE_NOT_FOUND: () => new guardian.PairingCodeNotFoundError(),
  GUARDIAN_LINK_ALREADY_EXISTS: () => new guardian.GuardianLinkAlreadyExistsError(),
  GUARDIAN_LIMIT_REACHED: () => new guardian.GuardianLimitReachedError(6),
  GUARDIAN_OF_SELF: () => new guardian.GuardianOfSelfError(),
  GUARDIAN_INVITATION_NOT_FOUND: () =>
    new guardian.GuardianInvitationNotFoundError('019a8c2e-4b1d-7c3e-9f0a-5d6e7f809a1d'),
  GUARDIAN_INVITATION_ALREADY_PENDING: () => new guardian.GuardianInvitationAlreadyPendingError(),
  INVITATION_NOT_FOUND: () => new notFound.InvitationNotFoundError('019a8c2e-4b1d-7c3e-9f0a-5d6e7f809a1b'),
  TRANSFER_NOT_FOUND: () => new notFound.TransferNotFoundError('019a8c2f-1a2b-7c3d-8e4f-5a6b7c8d9e0f'),
  WEBHOOK_NOT_FOUND: () => new notFound.WebhookNotFoundError('019a8c2f-1a2b-7c3d-8e4f-5a6b7c8d9e10'),
  WEBHOOK_DELIVERY_NOT_FOUND: () =>
    new notFound.WebhookDeliveryNotFoundError('019a8c2f-1a2b-7c3d-8e4f-5a6b7c8d9e11'),
  ROSTER_IMPORT_NOT_FOUND: () =>
    new notFound.RosterImportNotFoundError('019a9d31-7c2e-7b40-8d1f-3e5a6b7c8d90'),
  JOIN_CODE_NOT_FOUND: () => new joining.JoinCodeNotFoundError(),
  JOIN_REQUEST_NOT_FOUND: () => new joining.JoinRequestNotFoundError('019acb10-4e2f-7a31-9c5d-2b3c4d5e6f70'),
  JOIN_BLOCK_NOT_FOUND: () => new joining.JoinBlockNotFoundError('019acb10-4e2f-7a31-9c5d-2b3c4d5e6f71'),
  JOIN_BLOCKED: () => new joining.JoinBlockedError(),
  DOMAIN_NOT_FOUND: () => new domain.DomainNotFoundError('019acb10-4e2f-7a31-9c5d-2b3c4d5e6f72'),
  DOMAIN_ALREADY_CLAIMED: () => new domain.DomainAlreadyClaimedError('school.example'),
  MEMBERSHIP_NOT_ACTIVE: () => new joining.MembershipNotActiveError('SUSPENDED'),
  JOIN_REQUEST_NOT_PENDING: () => new joining.JoinRequestNotPendingError('REJECTED'),
  ROUTE_NOT_FOUND: () => new request.RouteNotFoundError('GET', '/tenant'),
  METHOD_NOT_ALLOWED: () => new request.MethodNotAllowedError('PUT', ['GET', 'PATCH', 'DELETE']),
  TENANT_SLUG_TAKEN: () => new conflict.TenantSlugTakenError('green-valley'),
  MEMBERSHIP_ALREADY_EXISTS: () => new conflict.MembershipAlreadyExistsError(),
  LAST_OWNER: () => new conflict.LastOwnerError(),
  INVITATION_ALREADY_PENDING: () => new conflict.InvitationAlreadyPendingError(),
  INVITATION_NOT_PENDING: () => new conflict.InvitationNotPendingError('ACCEPTED'),
  INVITATION_EXPIRED: () => new conflict.InvitationExpiredError(),
  TRANSFER_ALREADY_PENDING: () => new conflict.TransferAlreadyPendingError(),
  TRANSFER_NOT_APPLICABLE: () =>
    new conflict.TransferNotApplicableError('The nominee is not an ACTIVE member below OWNER'),
  TRANSFER_NOT_PENDING: () => new conflict.TransferNotPendingError('DECLINED'),
  WEBHOOK_LIMIT_REACHED: () => new conflict.WebhookLimitReachedError(20),
  WEBHOOK_TARGET_REFUSED: () =>
    new conflict.WebhookTargetRefusedError('hooks.example.internal resolves to 10.0.0.7, a private address'),
  ROSTER_INVALID: () =>
    new conflict.RosterInvalidError('019a9d31-7c2e-7b40-8d1f-3e5a6b7c8d90', 1, [
      {
        path: 'rows[7].role',
        message: 'role must be one of OWNER, ADMIN, TEACHER, STUDENT, administrator, teacher, student, aide',
        row: 7,
        column: 'role',
        code: 'INVALID_ROLE',
      },
    ]),
  ROSTER_REMOVAL_LIMIT: () =>
    new conflict.RosterRemovalLimitError(
      'The sync would remove 412 of 2150 members; maxRemovalPercent=10 allows 215. Nothing was applied ' +
        '(import 019a9d31-7c2e-7b40-8d1f-3e5a6b7c8d90): check the file, or raise maxRemovalPercent',
    ),
  PRECONDITION_FAILED: () => new conflict.PreconditionFailedError(3),
  MEMBERSHIP_MANAGED_BY_DIRECTORY: () => new conflict.MembershipManagedByDirectoryError(),
  SCIM_TOKEN_NOT_FOUND: () => new notFound.ScimTokenNotFoundError('019a9d31-7c2e-7b40-8d1f-3e5a6b7c8d91'),
  SCIM_GROUP_NOT_FOUND: () => new notFound.ScimGroupNotFoundError('019a9d31-7c2e-7b40-8d1f-3e5a6b7c8d92'),
  IDEMPOTENCY_KEY_IN_FLIGHT: () => new conflict.IdempotencyKeyInFlightError(),
  IDEMPOTENCY_KEY_REUSED: () => new conflict.IdempotencyKeyReusedError(),
  RATE_LIMITED: () => new access.RateLimitedError(42),
  TENANT_BUSY: () => new access.TenantBusyError(1),
  PAYLOAD_TOO_LARGE: () => new request.PayloadTooLargeError('100kb'),
  UNSUPPORTED_MEDIA_TYPE: () => new request.UnsupportedMediaTypeError(),
  INTERNAL_ERROR: () => new server.InternalError(),
  SERVICE_UNAVAILABLE: () => new server.ServiceUnavailableError(),
  SERVICE_OVERLOADED: () => new server.ServiceOverloadedError(1),
} satisfies Record<ResponseCode, () => AppError>;
