import { AUDIT_RESPONSE_EXAMPLES } from './audit-examples.js';
import { DOMAIN_REQUEST_EXAMPLES, DOMAIN_RESPONSE_EXAMPLES } from './domain-examples.js';
import { type Example, REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from './examples.js';
import { EXPORT_RESPONSE_MEDIA, type ResponseMedia } from './export-examples.js';
import { GUARDIAN_REQUEST_EXAMPLES, GUARDIAN_RESPONSE_EXAMPLES } from './guardian-examples.js';
import {
  GUARDIAN_INVITATION_REQUEST_EXAMPLES,
  GUARDIAN_INVITATION_RESPONSE_EXAMPLES,
} from './guardian-invitation-examples.js';
import { HEALTH_RESPONSE_EXAMPLES } from './health-examples.js';
import { JOINING_REQUEST_EXAMPLES, JOINING_RESPONSE_EXAMPLES } from './joining-examples.js';
import { LIFECYCLE_REQUEST_EXAMPLES, LIFECYCLE_RESPONSE_EXAMPLES } from './lifecycle-examples.js';
import { ROSTER_REQUEST_EXAMPLES, ROSTER_RESPONSE_EXAMPLES } from './roster-examples.js';
import { SCIM_REQUEST_EXAMPLES, SCIM_RESPONSE_EXAMPLES } from './scim-examples.js';
import { WEBHOOK_REQUEST_EXAMPLES, WEBHOOK_RESPONSE_EXAMPLES } from './webhook-examples.js';

type ByOperation<T> = Record<string, T>;

/** Maps of examples merged key by key: the examples under one key (an operation, a status) side by side. */
function mergeExamples<T>(...maps: object[]): ByOperation<T> {
  const merged: Record<string, T> = {};
  for (const map of maps)
    for (const [key, value] of Object.entries(map)) merged[key] = { ...(merged[key] ?? {}), ...value } as T;
  return merged;
}

/** The files of examples, one map per operation, their examples side by side. */
export const REQUEST_EXAMPLES_BY_OPERATION: ByOperation<Record<string, Example>> = mergeExamples(
  REQUEST_EXAMPLES,
  LIFECYCLE_REQUEST_EXAMPLES,
  WEBHOOK_REQUEST_EXAMPLES,
  ROSTER_REQUEST_EXAMPLES,
  SCIM_REQUEST_EXAMPLES,
  JOINING_REQUEST_EXAMPLES,
  DOMAIN_REQUEST_EXAMPLES,
  GUARDIAN_REQUEST_EXAMPLES,
  GUARDIAN_INVITATION_REQUEST_EXAMPLES,
);

const RESPONSE_FILES: ByOperation<object>[] = [
  RESPONSE_EXAMPLES,
  LIFECYCLE_RESPONSE_EXAMPLES,
  AUDIT_RESPONSE_EXAMPLES,
  HEALTH_RESPONSE_EXAMPLES,
  WEBHOOK_RESPONSE_EXAMPLES,
  ROSTER_RESPONSE_EXAMPLES,
  SCIM_RESPONSE_EXAMPLES,
  JOINING_RESPONSE_EXAMPLES,
  DOMAIN_RESPONSE_EXAMPLES,
  GUARDIAN_RESPONSE_EXAMPLES,
  GUARDIAN_INVITATION_RESPONSE_EXAMPLES,
];

/** Likewise per operation and status. */
export const RESPONSE_EXAMPLES_BY_OPERATION: ByOperation<Record<string, Record<string, Example>>> =
  Object.fromEntries(
    [...new Set(RESPONSE_FILES.flatMap((file) => Object.keys(file)))].map((operationId) => [
      operationId,
      mergeExamples(...RESPONSE_FILES.map((file) => file[operationId] ?? {})),
    ]),
  );

/**
 * The responses whose bodies are not JSON (a download), by operation and status: their description
 * and media types, each with its schema and examples. ts-rest/open-api writes no content for them.
 */
export const RESPONSE_MEDIA_BY_OPERATION: ByOperation<Record<string, ResponseMedia>> = {
  ...EXPORT_RESPONSE_MEDIA,
};
