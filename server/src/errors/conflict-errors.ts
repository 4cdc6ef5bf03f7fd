import type { FieldError } from '@tms/contract';
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

/** A change by hand of what the tenant's directory decides (modules/scim): its role, status, removal. */
export class MembershipManagedByDirectoryError extends AppError {
  readonly code = 'MEMBERSHIP_MANAGED_BY_DIRECTORY';
  constructor() {
    super(
      "This membership is managed by the tenant's directory (SCIM): change its role, status or removal there",
    );
  }
}

export class PreconditionFailedError extends AppError {
  readonly code = 'PRECONDITION_FAILED';
  constructor(current: number) {
    super(`If-Match does not match the current version (${current})`);
  }
}

/** A roster import with invalid rows: nothing applied; `details` holds each error with its row and column. */
export class RosterInvalidError extends AppError {
  readonly code = 'ROSTER_INVALID';
  constructor(importId: string, invalidRows: number, details: FieldError[]) {
    const rows = invalidRows === 1 ? '1 invalid row' : `${invalidRows} invalid rows`;
    super(
      `The roster has ${invalidRows === 0 ? 'errors' : rows}; nothing was applied (import ${importId} lists them)`,
      details,
    );
  }
}

/**
 * A roster sync that would remove more members than `maxRemovalPercent` allows: nothing applied.
 * The message has the counts (see removalLimitMessage in modules/rosters).
 */
export class RosterRemovalLimitError extends AppError {
  readonly code = 'ROSTER_REMOVAL_LIMIT';
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

export class InvitationAlreadyPendingError extends AppError {
  readonly code = 'INVITATION_ALREADY_PENDING';
  constructor() {
    super('This address already has a pending invitation to this tenant');
  }
}

export class InvitationNotPendingError extends AppError {
  readonly code = 'INVITATION_NOT_PENDING';
  constructor(status: string) {
    super(`The invitation is ${status}, not pending`);
  }
}

export class InvitationExpiredError extends AppError {
  readonly code = 'INVITATION_EXPIRED';
  constructor() {
    super('The invitation has expired; ask the tenant to resend it');
  }
}

export class TransferAlreadyPendingError extends AppError {
  readonly code = 'TRANSFER_ALREADY_PENDING';
  constructor() {
    super('This tenant already has a pending ownership transfer');
  }
}

export class TransferNotApplicableError extends AppError {
  readonly code = 'TRANSFER_NOT_APPLICABLE';
  constructor(reason: string) {
    super(reason);
  }
}

export class TransferNotPendingError extends AppError {
  readonly code = 'TRANSFER_NOT_PENDING';
  constructor(status: string) {
    super(`The ownership transfer is ${status}, not pending`);
  }
}

export class WebhookLimitReachedError extends AppError {
  readonly code = 'WEBHOOK_LIMIT_REACHED';
  constructor(max: number) {
    super(`There are already ${max} webhook endpoints here; remove one first`);
  }
}

/** The URL's host is, or resolves to, an address the service never sends to (or the URL is not HTTPS). */
export class WebhookTargetRefusedError extends AppError {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
}
