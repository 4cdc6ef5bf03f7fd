import type { FieldError } from '@tms/contract';
import type { RequestValidationError } from '@ts-rest/express';
import type { ZodError, ZodIssue } from 'zod';

const MAX_DETAILS = 20;

/** Of a union's branches, report the one that came closest to matching. */
function flatten(issue: ZodIssue): ZodIssue[] {
  if (issue.code !== 'invalid_union' || issue.unionErrors.length === 0) return [issue];
  const closest = [...issue.unionErrors].sort((a, b) => a.issues.length - b.issues.length)[0];
  return closest ? closest.issues.flatMap(flatten) : [issue];
}

function detailsOf(where: string, error: ZodError | null): FieldError[] {
  if (!error) return [];
  return error.issues.flatMap(flatten).map((issue) => ({
    path: [where, ...issue.path].join('.'),
    message: issue.message,
  }));
}

export function validationDetails(error: RequestValidationError): FieldError[] {
  return [
    ...detailsOf('params', error.pathParams),
    ...detailsOf('headers', error.headers),
    ...detailsOf('query', error.query),
    ...detailsOf('body', error.body),
  ].slice(0, MAX_DETAILS);
}
