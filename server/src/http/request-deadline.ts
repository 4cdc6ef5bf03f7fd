import type { RequestHandler } from 'express';
import { ServiceUnavailableError } from '../errors/index.js';

/**
 * A database that stops answering mid-query would otherwise hold the request for as long as TCP
 * takes to notice (minutes). Past the deadline the caller gets 503 and may retry.
 *
 * The handler is still running, and may finish once the database answers. By then express has
 * moved past the error handler, so its late outcome (an answer, an error) ends in express's final
 * handler, which destroys `req.socket`. With keep-alive that socket may carry the client's next
 * request by then, which would die with it: so the 503 closes the connection, and the socket of a
 * request that timed out never carries another one.
 */
export function requestDeadline(ms: number, onExpire?: () => void): RequestHandler {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      onExpire?.();
      res.setHeader('Connection', 'close');
      next(new ServiceUnavailableError('The request took too long; the database may be unreachable'));
    }, ms);
    // 'close' follows every answer, and a client that went away: one listener covers both.
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
