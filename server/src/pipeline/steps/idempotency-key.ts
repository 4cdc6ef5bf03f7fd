import type { RequestHandler } from 'express';
import type { Admission } from '../../admission/admission.js';
import type { Database } from '../../db/database.js';
import { ValidationFailedError } from '../../errors/index.js';
import { startIdempotent } from '../../idempotency/idempotent-request.js';
import { admitted } from '../admitted.js';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A POST with an `Idempotency-Key` claims it once access is decided and before the body is read
 * and the change made, so that a second request with the key, on any process, sees it at once
 * (409 while it runs, its answer replayed after). Keys are per caller (read by decide-early.ts,
 * which a key makes run). A request that ends without storing an answer gives its key up when its
 * connection closes (errors are not replayed: a retry runs again).
 */
export function claimIdempotencyKey(db: Database, admission: Admission | undefined): RequestHandler {
  return (req, res, next) => {
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined) return next();
    if (typeof header !== 'string' || !KEY.test(header)) {
      return next(
        new ValidationFailedError([
          { path: 'headers.idempotency-key', message: 'one key of 1 to 255 visible ASCII characters' },
        ]),
      );
    }
    const caller = req.state.caller;
    if (!caller) return next(new Error('an Idempotency-Key before the caller was read'));
    admitted(admission, req, 'read', () => startIdempotent(db, caller.userId, header)).then((idempotency) => {
      req.state.idempotency = idempotency;
      if (idempotency.kind === 'run') res.once('close', () => void idempotency.release().catch(() => {}));
      next();
    }, next);
  };
}
