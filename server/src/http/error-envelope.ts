import type { ErrorEnvelope } from '@tms/contract';
import type { AppError } from '../errors/index.js';

export function errorEnvelope(error: AppError, requestId: string): ErrorEnvelope {
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId,
    },
  };
}
