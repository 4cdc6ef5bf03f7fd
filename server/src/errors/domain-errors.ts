import { AppError } from './app-error.js';

export class DomainNotFoundError extends AppError {
  readonly code = 'DOMAIN_NOT_FOUND';
  constructor(domainId: string) {
    super(`Domain ${domainId} does not exist here`);
  }
}

/** A domain acts for one tenant only: whoever verified it first holds it. */
export class DomainAlreadyClaimedError extends AppError {
  readonly code = 'DOMAIN_ALREADY_CLAIMED';
  constructor(domain?: string) {
    super(
      domain === undefined
        ? 'Another tenant has verified this domain'
        : `${domain} is already this tenant's, or verified by another tenant`,
    );
  }
}
