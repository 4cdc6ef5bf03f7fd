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
    const expire = () => {
      if (res.headersSent) return;
      onExpire?.();
      res.setHeader('Connection', 'close');
      next(new ServiceUnavailableError('The request took too long; the database may be unreachable'));
      ended.end();
    };
    const deadline = new Deadline(expire, ms, res);
    req.state = { end: ended, deadline };
    // 'close' follows every answer, and a client that went away: one listener covers both.
    res.once('close', () => {
      deadline.stop();
      ended.end();
    });
    next();
  };
}

/**
 * A request's clock. Kept in the request's state, not in a WeakMap keyed by the response: V8's
 * scavenger holds a WeakMap's values strongly, so a value that reaches its response kept every
 * request alive until the next full collection (2 MB promoted at every scavenge under load, each
 * scavenge four times as long).
 */
export class Deadline {
  private timer: NodeJS.Timeout;

  constructor(
    private readonly expire: () => void,
    private readonly ms: number,
    private readonly res: ServerResponse,
  ) {
    this.timer = setTimeout(expire, ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** Stops the clock, and returns what starts it again, whole. */
  pause(): () => void {
    this.stop();
    return () => {
      if (!this.res.writableEnded) this.timer = setTimeout(this.expire, this.ms);
    };
  }
}

/**
 * A body of up to 10 MiB (a roster import's), read by its route as it arrives and with nothing
 * held meanwhile: the deadline bounds the server's work, not the client's upload, and a slow
 * upload must not look like a database that stopped answering. Its clock stops until the body has
 * arrived. (A reader that stops early, at a broken quote, goes on without it: statement_timeout
 * bounds each statement.)
 */
export const pauseDeadlineWhileBodyArrives = (
  req: IncomingMessage & { state?: { deadline?: Deadline } },
  _res: ServerResponse,
  next: () => void,
): void => {
  const deadline = req.state?.deadline;
  if (deadline && bodyUnread(req)) req.once('end', deadline.pause());
  next();
};
