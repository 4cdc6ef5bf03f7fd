import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { ServiceUnavailableError } from '../errors/index.js';
import { bodyUnread } from './json-body.js';
import { RequestEnd } from './request-end.js';

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
  return (req, res, next) => {
    // The request's end, for the work it started (pipeline/request-state.ts): the deadline's 503,
    // or the connection closed (after the answer, or a client gone).
    const ended = new RequestEnd();
    req.state = { end: ended };
    const expire = () => {
      if (res.headersSent) return;
      onExpire?.();
      res.setHeader('Connection', 'close');
      next(new ServiceUnavailableError('The request took too long; the database may be unreachable'));
      ended.end();
    };
    let timer = setTimeout(expire, ms);
    paused.set(res, () => {
      clearTimeout(timer);
      return () => {
        if (!res.writableEnded) timer = setTimeout(expire, ms);
      };
    });
    // 'close' follows every answer, and a client that went away: one listener covers both.
    res.once('close', () => {
      clearTimeout(timer);
      ended.end();
    });
    next();
  };
}

/** Per answer: stops its deadline's clock, and returns what starts it again, whole. */
const paused = new WeakMap<ServerResponse, () => () => void>();

/**
 * A body of up to 10 MiB (a roster import's), read by its route as it arrives and with nothing
 * held meanwhile: the deadline bounds the server's work, not the client's upload, and a slow
 * upload must not look like a database that stopped answering. Its clock stops until the body has
 * arrived. (A reader that stops early, at a broken quote, goes on without it: statement_timeout
 * bounds each statement.)
 */
export const pauseDeadlineWhileBodyArrives = (
  req: IncomingMessage,
  res: ServerResponse,
  next: () => void,
): void => {
  const pause = paused.get(res);
  if (pause && bodyUnread(req)) req.once('end', pause());
  next();
};
