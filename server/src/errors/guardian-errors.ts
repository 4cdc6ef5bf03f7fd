import { AppError } from './app-error.js';

export class StudentNotFoundError extends AppError {
  readonly code = 'STUDENT_NOT_FOUND';
  constructor(userId: string) {
    super(`User ${userId} has no STUDENT membership in this tenant`);
  }
}

export class GuardianLinkNotFoundError extends AppError {
  readonly code = 'GUARDIAN_LINK_NOT_FOUND';
  constructor(guardianLinkId: string) {
    super(`Guardian link ${guardianLinkId} does not exist in this tenant`);
  }
}

/** One answer for a wrong, used, revoked or expired code: a guesser learns nothing from which. */
export class PairingCodeNotFoundError extends AppError {
  readonly code = 'PAIRING_CODE_NOT_FOUND';
  constructor() {
    super('No live pairing code matches');
  }
}

export class GuardianLinkAlreadyExistsError extends AppError {
  readonly code = 'GUARDIAN_LINK_ALREADY_EXISTS';
  constructor(message = 'You are already a guardian of this student here') {
    super(message);
  }
}

export class GuardianLimitReachedError extends AppError {
  readonly code = 'GUARDIAN_LIMIT_REACHED';
  constructor(max: number) {
    super(`The student already has ${max} active guardians here`);
  }
}

export class GuardianOfSelfError extends AppError {
  readonly code = 'GUARDIAN_OF_SELF';
  constructor() {
    super('A student cannot be their own guardian');
  }
}

/** Another tenant's, or (under /me) one addressed to someone else: an id does not tell who was invited. */
export class GuardianInvitationNotFoundError extends AppError {
  readonly code = 'GUARDIAN_INVITATION_NOT_FOUND';
  constructor(guardianInvitationId: string) {
    super(`Guardian invitation ${guardianInvitationId} does not exist here`);
  }
}

export class GuardianInvitationAlreadyPendingError extends AppError {
  readonly code = 'GUARDIAN_INVITATION_ALREADY_PENDING';
  constructor() {
    super('This address already has a pending guardian invitation for this student');
  }
}
