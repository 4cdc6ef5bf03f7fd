import { AppError } from './app-error.js';

export class UnauthenticatedError extends AppError {
  readonly code = 'UNAUTHENTICATED';
  constructor(message = 'A valid bearer token is required') {
    super(message);
  }
}

export class SuperAdminRequiredError extends AppError {
  readonly code = 'SUPER_ADMIN_REQUIRED';
  constructor() {
    super('Only super administrators may use platform routes');
  }
}

export class TenantAccessDeniedError extends AppError {
  readonly code = 'TENANT_ACCESS_DENIED';
  constructor() {
    super('You are not a member of this tenant');
  }
}

export class InsufficientRoleError extends AppError {
  readonly code = 'INSUFFICIENT_ROLE';
  constructor(message = 'Only OWNER or ADMIN members may manage memberships') {
    super(message);
  }
}

export class RoleHierarchyViolationError extends AppError {
  readonly code = 'ROLE_HIERARCHY_VIOLATION';
  constructor(message = 'You may not act on a role above your own') {
    super(message);
  }
}

/** More of one tenant's (or caller's) requests at once than its share of the process: see admission/. */
export class TenantBusyError extends AppError {
  readonly code = 'TENANT_BUSY';
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many requests for this tenant at once; try again in ${retryAfterSeconds} s`);
  }
}

export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many requests; try again in ${retryAfterSeconds} s`);
  }
}
