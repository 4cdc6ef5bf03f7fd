import type { RequestHandler } from 'express';
import type { Admission, Work } from '../../admission/admission.js';
import { admissionKeyOf } from '../admitted.js';

/**
 * Refuses at once a request that admission would refuse anyway (its tenant's queue, or the
 * process's, would not drain in time): before its caller is read or its body looked at, so that
 * load beyond capacity costs a token check and a refusal, and takes nothing from the work admitted.
 */
export function shed(admission: Admission | undefined, work: Work): RequestHandler {
  return (req, _res, next) => {
    next(admission?.refusalNow(admissionKeyOf(req), work));
  };
}
