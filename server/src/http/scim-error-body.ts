import { SCIM_SCHEMA, type ScimError as ScimErrorBody, type ScimErrorType } from '@tms/contract';
import type { AppError } from '../errors/index.js';
import { ScimError } from '../errors/index.js';

/** The scimType RFC 7644 §3.12 gives the API's refusals that a SCIM request can meet. */
const SCIM_TYPE_OF_CODE: Partial<Record<AppError['code'], ScimErrorType>> = {
  VALIDATION_FAILED: 'invalidSyntax',
  INVALID_JSON: 'invalidSyntax',
  MEMBERSHIP_ALREADY_EXISTS: 'uniqueness',
  LAST_OWNER: 'mutability',
};

/** An error of a SCIM request, in the SCIM Error schema: the status as a string, as the RFC has it. */
export function scimErrorBodyOf(error: AppError | ScimError): ScimErrorBody {
  const scimType = error instanceof ScimError ? error.scimType : SCIM_TYPE_OF_CODE[error.code];
  return {
    schemas: [SCIM_SCHEMA.error],
    status: String(error.status),
    ...(scimType && { scimType }),
    detail: error.message,
  };
}
