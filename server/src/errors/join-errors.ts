import type { JoinRequestStatus, MembershipStatus } from '@tms/contract';
import { AppError } from './app-error.js';

/** Wrong, expired, revoked, used up: one answer, so that trying codes tells nothing of which. */
export class JoinCodeNotFoundError extends AppError {
  readonly code = 'JOIN_CODE_NOT_FOUND';
  constructor() {
    super('No such join code');
  }
}

export class JoinRequestNotFoundError extends AppError {
  readonly code = 'JOIN_REQUEST_NOT_FOUND';
  constructor(joinRequestId: string) {
    super(`Join request ${joinRequestId} does not exist here`);
  }
}

export class JoinBlockNotFoundError extends AppError {
  readonly code = 'JOIN_BLOCK_NOT_FOUND';
  constructor(userId: string) {
    super(`User ${userId} is not blocked from joining this tenant`);
  }
}

export class JoinBlockedError extends AppError {
  readonly code = 'JOIN_BLOCKED';
  constructor() {
    super('This tenant does not let you join it by a code');
  }
}

export class MembershipNotActiveError extends AppError {
  readonly code = 'MEMBERSHIP_NOT_ACTIVE';
  constructor(status: MembershipStatus) {
    super(`You already have a membership here, ${status}: joining does not change it`);
  }
}

export class JoinRequestNotPendingError extends AppError {
  readonly code = 'JOIN_REQUEST_NOT_PENDING';
  constructor(status: JoinRequestStatus) {
    super(`The join request is ${status}`);
  }
}
