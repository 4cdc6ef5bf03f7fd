export * from './access-errors.js';
export * from './app-error.js';
export * from './conflict-errors.js';
export * from './guardian-errors.js';
export * from './not-found-errors.js';
export * from './request-errors.js';
export * from './scim-error.js';
export * from './server-errors.js';
