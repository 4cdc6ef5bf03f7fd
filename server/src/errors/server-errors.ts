import { AppError } from './app-error.js';

export class InternalError extends AppError {
  readonly code = 'INTERNAL_ERROR';
  constructor() {
    super('Something went wrong on our side; the request id identifies it in the logs');
  }
}

export class ServiceUnavailableError extends AppError {
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(message = 'The database is not reachable right now; try again shortly') {
    super(message);
  }
}

/** More requests wait for the database than the process can serve in time: see admission/. */
export class ServiceOverloadedError extends AppError {
  readonly code = 'SERVICE_OVERLOADED';
  constructor(readonly retryAfterSeconds: number) {
    super(`The service is busy; try again in ${retryAfterSeconds} s`);
  }
}
