import type { RequestHandler } from 'express';
import { accessRuleOf } from '../access/decide-access.js';
import type { Database } from '../db/database.js';
import { ValidationFailedError } from '../errors/index.js';
import { startIdempotent } from '../idempotency/idempotent-request.js';
import { callerOf } from '../routing/request-context.js';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A POST with an `Idempotency-Key` claims it before its access is decided and its transaction
 * begins, so that a second request with the key, on any process, sees it at once (409 while it
 * runs, its answer replayed after). Keys are per caller. A request that ends without storing an
 * answer gives its key up when its connection closes (errors are not replayed: a retry runs again).
 */
export function idempotencyKey(db: Database): RequestHandler {
  return (req, res, next) => {
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined || accessRuleOf(req.tsRestRoute) === 'public')
      return next();
    if (typeof header !== 'string' || !KEY.test(header)) {
      return next(
        new ValidationFailedError([
          { path: 'headers.idempotency-key', message: 'one key of 1 to 255 visible ASCII characters' },
        ]),
      );
    }
    startIdempotent(db, callerOf(req).userId, header).then((idempotency) => {
      req.idempotency = idempotency;
      if (idempotency.kind === 'run') res.once('close', () => void idempotency.release().catch(() => {}));
      next();
    }, next);
  };
}
