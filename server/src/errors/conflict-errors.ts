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
