import { AppError } from './app-error.js';

export class TenantSlugTakenError extends AppError {
  readonly code = 'TENANT_SLUG_TAKEN';
  constructor(slug: string) {
    super(`The slug "${slug}" is taken`);
  }
}

export class MembershipAlreadyExistsError extends AppError {
  readonly code = 'MEMBERSHIP_ALREADY_EXISTS';
  constructor() {
    super('This user is already a member of this tenant');
  }
}

export class LastOwnerError extends AppError {
  readonly code = 'LAST_OWNER';
  constructor() {
    super('A tenant must keep at least one OWNER');
  }
}

export class PreconditionFailedError extends AppError {
  readonly code = 'PRECONDITION_FAILED';
  constructor(current: number) {
    super(`If-Match does not match the current version (${current})`);
  }
}

export class IdempotencyKeyInFlightError extends AppError {
  readonly code = 'IDEMPOTENCY_KEY_IN_FLIGHT';
  constructor() {
    super('A request with this Idempotency-Key is still running; retry once it has answered');
  }
}

export class IdempotencyKeyReusedError extends AppError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  constructor() {
    super('This Idempotency-Key was already used for a different request');
  }
}
