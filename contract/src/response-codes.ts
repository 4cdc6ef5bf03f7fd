/**
 * The central enumeration of response codes. Adding an error means adding its code here, its
 * status in HTTP_STATUS (the compiler refuses a missing one), and its error class on the server.
 */
export const ResponseCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID_JSON: 'INVALID_JSON',
  TENANT_ID_MISMATCH: 'TENANT_ID_MISMATCH',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  SUPER_ADMIN_REQUIRED: 'SUPER_ADMIN_REQUIRED',
  TENANT_ACCESS_DENIED: 'TENANT_ACCESS_DENIED',
  INSUFFICIENT_ROLE: 'INSUFFICIENT_ROLE',
  ROLE_HIERARCHY_VIOLATION: 'ROLE_HIERARCHY_VIOLATION',
  TENANT_NOT_FOUND: 'TENANT_NOT_FOUND',
  MEMBERSHIP_NOT_FOUND: 'MEMBERSHIP_NOT_FOUND',
  USER_NOT_FOUND: 'USER_NOT_FOUND',
  INVITATION_NOT_FOUND: 'INVITATION_NOT_FOUND',
  TRANSFER_NOT_FOUND: 'TRANSFER_NOT_FOUND',
  WEBHOOK_NOT_FOUND: 'WEBHOOK_NOT_FOUND',
  WEBHOOK_DELIVERY_NOT_FOUND: 'WEBHOOK_DELIVERY_NOT_FOUND',
  ROSTER_IMPORT_NOT_FOUND: 'ROSTER_IMPORT_NOT_FOUND',
  ROUTE_NOT_FOUND: 'ROUTE_NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  TENANT_SLUG_TAKEN: 'TENANT_SLUG_TAKEN',
  MEMBERSHIP_ALREADY_EXISTS: 'MEMBERSHIP_ALREADY_EXISTS',
  LAST_OWNER: 'LAST_OWNER',
  MEMBERSHIP_MANAGED_BY_DIRECTORY: 'MEMBERSHIP_MANAGED_BY_DIRECTORY',
  SCIM_TOKEN_NOT_FOUND: 'SCIM_TOKEN_NOT_FOUND',
  SCIM_GROUP_NOT_FOUND: 'SCIM_GROUP_NOT_FOUND',
  INVITATION_ALREADY_PENDING: 'INVITATION_ALREADY_PENDING',
  INVITATION_NOT_PENDING: 'INVITATION_NOT_PENDING',
  TRANSFER_ALREADY_PENDING: 'TRANSFER_ALREADY_PENDING',
  TRANSFER_NOT_APPLICABLE: 'TRANSFER_NOT_APPLICABLE',
  TRANSFER_NOT_PENDING: 'TRANSFER_NOT_PENDING',
  WEBHOOK_LIMIT_REACHED: 'WEBHOOK_LIMIT_REACHED',
  WEBHOOK_TARGET_REFUSED: 'WEBHOOK_TARGET_REFUSED',
  ROSTER_INVALID: 'ROSTER_INVALID',
  ROSTER_REMOVAL_LIMIT: 'ROSTER_REMOVAL_LIMIT',
  INVITATION_EXPIRED: 'INVITATION_EXPIRED',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  IDEMPOTENCY_KEY_IN_FLIGHT: 'IDEMPOTENCY_KEY_IN_FLIGHT',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  TENANT_BUSY: 'TENANT_BUSY',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  SERVICE_OVERLOADED: 'SERVICE_OVERLOADED',
} as const;
export type ResponseCode = (typeof ResponseCode)[keyof typeof ResponseCode];

export const RESPONSE_CODES = Object.values(ResponseCode) as [ResponseCode, ...ResponseCode[]];

/** One exhaustive map: every code has exactly one HTTP status. */
export const HTTP_STATUS = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  TENANT_ID_MISMATCH: 400,
  UNAUTHENTICATED: 401,
  SUPER_ADMIN_REQUIRED: 403,
  TENANT_ACCESS_DENIED: 403,
  INSUFFICIENT_ROLE: 403,
  ROLE_HIERARCHY_VIOLATION: 403,
  TENANT_NOT_FOUND: 404,
  MEMBERSHIP_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  TRANSFER_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  ROSTER_IMPORT_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  TENANT_SLUG_TAKEN: 409,
  MEMBERSHIP_ALREADY_EXISTS: 409,
  LAST_OWNER: 409,
  MEMBERSHIP_MANAGED_BY_DIRECTORY: 409,
  SCIM_TOKEN_NOT_FOUND: 404,
  SCIM_GROUP_NOT_FOUND: 404,
  INVITATION_ALREADY_PENDING: 409,
  INVITATION_NOT_PENDING: 409,
  TRANSFER_ALREADY_PENDING: 409,
  TRANSFER_NOT_APPLICABLE: 409,
  TRANSFER_NOT_PENDING: 409,
  WEBHOOK_LIMIT_REACHED: 409,
  WEBHOOK_TARGET_REFUSED: 422,
  ROSTER_INVALID: 409,
  ROSTER_REMOVAL_LIMIT: 409,
  INVITATION_EXPIRED: 410,
  PRECONDITION_FAILED: 412,
  IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  TENANT_BUSY: 429,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  SERVICE_OVERLOADED: 503,
} as const satisfies Record<ResponseCode, number>;

/**
 * What each code means, in one line: the error table of docs/errors.md is generated from it
 * (`npm run docs:errors`), so the docs cannot forget a code or drift from the contract.
 */
export const RESPONSE_CODE_MEANING = {
  VALIDATION_FAILED:
    'A path parameter, header, query or body fails its schema (unknown body fields included), or a cursor is not one this API gave out',
  INVALID_JSON: 'The body is not parseable JSON',
  TENANT_ID_MISMATCH: "`x-tenant-id` differs from the URL's tenant",
  UNAUTHENTICATED: 'No bearer token, or one that is not valid',
  SUPER_ADMIN_REQUIRED: 'A platform route, and the caller is not a super administrator',
  TENANT_ACCESS_DENIED: 'The caller is not a member of the tenant (whether or not it exists)',
  INSUFFICIENT_ROLE: 'A member below ADMIN on a membership route',
  ROLE_HIERARCHY_VIOLATION: 'Giving, or acting on, a role above your own',
  TENANT_NOT_FOUND: 'No such tenant (told to super administrators only)',
  MEMBERSHIP_NOT_FOUND: 'No such membership in this tenant (also: it belongs to another tenant)',
  USER_NOT_FOUND: '`userId` names no user',
  INVITATION_NOT_FOUND:
    "No such invitation in this tenant, or (to an invitee) none addressed to the caller's verified email",
  TRANSFER_NOT_FOUND: 'No such ownership transfer in this tenant, or (to a nominee) none naming the caller',
  WEBHOOK_NOT_FOUND: 'No such webhook endpoint here (one of another tenant, or a platform one, is not found)',
  WEBHOOK_DELIVERY_NOT_FOUND: 'No such delivery of this endpoint',
  ROSTER_IMPORT_NOT_FOUND: 'No such roster import in this tenant',
  ROUTE_NOT_FOUND: 'No such route',
  METHOD_NOT_ALLOWED: 'A known path, another method; the `Allow` header lists the methods',
  TENANT_SLUG_TAKEN: 'The slug belongs to another tenant',
  MEMBERSHIP_ALREADY_EXISTS: 'The user is already a member of the tenant',
  LAST_OWNER: "Demoting or removing the tenant's last OWNER",
  MEMBERSHIP_MANAGED_BY_DIRECTORY:
    "The membership is managed by the tenant's directory (SCIM): its role, status and removal change there",
  SCIM_TOKEN_NOT_FOUND: 'No such live SCIM token in this tenant',
  SCIM_GROUP_NOT_FOUND: 'No such SCIM group in this tenant',
  INVITATION_ALREADY_PENDING: 'The address already has a pending invitation to this tenant',
  INVITATION_NOT_PENDING:
    'The invitation was already accepted, declined or revoked (or, for revoke, has expired)',
  TRANSFER_ALREADY_PENDING: 'The tenant already has a pending ownership transfer',
  TRANSFER_NOT_APPLICABLE:
    'The nominee is not an ACTIVE non-OWNER member, or the initiator is no longer an ACTIVE OWNER',
  TRANSFER_NOT_PENDING: 'The ownership transfer was already accepted, declined, cancelled, or has expired',
  WEBHOOK_LIMIT_REACHED: 'The tenant (or the platform) already has the most webhook endpoints it may (20)',
  WEBHOOK_TARGET_REFUSED:
    'The webhook URL resolves to a loopback, private, link-local or metadata address, or is not HTTPS in production',
  ROSTER_INVALID:
    'A roster import has invalid rows, so nothing was applied; `details` lists each error with its row and column',
  ROSTER_REMOVAL_LIMIT:
    'A roster sync would remove more than `maxRemovalPercent` of the current members, so nothing was applied',
  INVITATION_EXPIRED: 'The invitation is past `expiresAt`; ask the tenant to resend it',
  PRECONDITION_FAILED: '`If-Match` does not match the current version',
  IDEMPOTENCY_KEY_IN_FLIGHT:
    'A request with the same `Idempotency-Key` is still running; retry once it has answered',
  IDEMPOTENCY_KEY_REUSED: 'The `Idempotency-Key` was already used, within 24 h, for a different request',
  PAYLOAD_TOO_LARGE: 'The body is over the size limit (100 KiB; a roster import: 10 MiB or 50,000 rows)',
  RATE_LIMITED: 'The caller spent its budget for the window; `Retry-After` says when the next one starts',
  TENANT_BUSY:
    'The tenant (outside a tenant: the caller) has more requests in flight than its share of this server; `Retry-After` says when its queue will have drained',
  UNSUPPORTED_MEDIA_TYPE: 'A body that is not `application/json` (or, for a roster import, `text/csv`)',
  INTERNAL_ERROR: 'Anything unexpected; the request id finds it in the logs',
  SERVICE_UNAVAILABLE:
    'The database (or the JWKS) cannot be reached in time, or the request passed its deadline; `Retry-After: 5`',
  SERVICE_OVERLOADED:
    'The server has more requests waiting for the database than it can serve in time; refused at once, `Retry-After` says when to come back',
} as const satisfies Record<ResponseCode, string>;
