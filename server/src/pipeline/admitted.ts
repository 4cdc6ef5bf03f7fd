import type { Request } from 'express';
import type { Admission, Work } from '../admission/admission.js';
import { tenantOf } from './requester.js';
import { accessRuleOf } from './route-kinds.js';

/**
 * Runs a request's database work in a slot of the process (admission/admission.ts): its tenant's
 * share on a tenant route, the platform's on a platform route, the caller's own elsewhere. Only the
 * work itself holds the slot: never the reading of a body, nor the sending of an answer.
 */
export async function admitted<T>(
  admission: Admission | undefined,
  req: Request,
  work: Work,
  run: () => Promise<T>,
): Promise<T> {
  if (!admission) return run();
  const release = await admission.acquire(admissionKeyOf(req), work, req.state.end);
  // Only a success says the database answers: a refusal may have been decided without it (a
  // request whose deadline passed before its turn begins nothing).
  let succeeded = false;
  try {
    const result = await run();
    succeeded = true;
    return result;
  } finally {
    release(succeeded);
  }
}

/** Whose share a request takes: its tenant's, the platform's, or its caller's own. */
export function admissionKeyOf(req: Request): string {
  const tenantId = tenantOf(req);
  if (tenantId) return `tenant:${tenantId}`;
  if (accessRuleOf(req.tsRestRoute) === 'superAdmin') return 'platform';
  return `caller:${req.state.claims?.sub ?? req.ip ?? ''}`;
}
