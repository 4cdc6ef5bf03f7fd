import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/** One structured line per request; never headers, bodies or tokens. */
export function requestLog(logger: Logger): RequestHandler {
  // Below `info`, no line would be written: spare every request the listener and the clock.
  if (!logger.isLevelEnabled('info')) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId: req.requestId,
          method: req.method,
          route: req.tsRestRoute?.path ?? null,
          path: req.path,
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          userId: req.state?.caller?.userId,
        },
        'request',
      );
    });
    next();
  };
}
