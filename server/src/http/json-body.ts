import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import {
  type AppError,
  InvalidJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../errors/index.js';
import { sendContinue } from './http-server.js';

export const BODY_LIMIT = '100kb';
const LIMIT_BYTES = 100 * 1024;

/** What a route's JSON body may be: its media types, and how large. */
type BodyRule = { types: string[]; limitBytes: number; limitName: string };
const API_BODY: BodyRule = { types: ['application/json'], limitBytes: LIMIT_BYTES, limitName: BODY_LIMIT };
/**
 * SCIM's: its own media type, and a directory's group of thousands of members patched at once
 * (RFC 7644 §3.5.2) is larger than anything the API takes.
 */
export const SCIM_BODY: BodyRule = {
  types: ['application/scim+json', 'application/json'],
  limitBytes: 1024 * 1024,
  limitName: '1mb',
};

// Fatal: invalid UTF-8 is a broken body, not text to repair with U+FFFD and store. It drops a BOM.
const utf8 = new TextDecoder('utf-8', { fatal: true });

function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * True while part of the request's body has not arrived. An answer given then must close the
 * connection: to reuse it, node would read and discard the rest, however large the caller says it is.
 */
export const bodyUnread = (req: IncomingMessage): boolean => hasBody(req) && !req.complete;

/**
 * True while part of the body has not reached this process. A small body sent with its headers
 * is in the request's buffer when the first step runs, though node marks the request complete only
 * on a later turn: its declared length is what tells it came whole.
 */
export function bodyOnItsWay(req: IncomingMessage): boolean {
  if (!bodyUnread(req)) return false;
  const length = req.headers['content-length'];
  return length === undefined || req.readableLength < Number(length);
}

/** What can be refused from the headers alone, before a byte of the body is read. */
function refusal(req: Parameters<RequestHandler>[0], rule: BodyRule): AppError | undefined {
  if (!req.is(rule.types)) return new UnsupportedMediaTypeError();
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i
    .exec(req.headers['content-type'] ?? '')?.[1]
    ?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    return new UnsupportedMediaTypeError();
  // No decompression: a few KB of gzip can inflate to gigabytes, and no client of ours compresses.
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return new UnsupportedMediaTypeError();
  if (Number(req.headers['content-length'] ?? 0) > rule.limitBytes)
    return new PayloadTooLargeError(rule.limitName);
  return undefined;
}

/**
 * Reads the body up to the limit and not a byte further (express.json read the whole body, even past
 * the limit, before it answered). On any failure the request is left paused, and the error answer
 * closes the connection (see bodyUnread).
 */
function readBody(req: IncomingMessage, rule: BodyRule): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: AppError) => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (!error) return resolve(Buffer.concat(chunks, size));
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > rule.limitBytes) settle(new PayloadTooLargeError(rule.limitName));
      else chunks.push(chunk);
    };
    const onEnd = () => settle();
    // The client went away mid-body (or the deadline answered and closed): nobody will read the answer.
    const onGone = () => settle(new InvalidJsonError());
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  });
}

function parseJson(raw: Buffer): unknown {
  // As express.json did: an empty body is an empty object (validation then says what is missing).
  if (raw.length === 0) return {};
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new InvalidJsonError();
  }
  // Strict, as express.json was: the top level must be an object or an array.
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') throw new InvalidJsonError();
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidJsonError();
  }
}

/**
 * Runs last in a route's pipeline, after authentication and access checks: a caller refused there
 * never gets its body read, nor a `100 Continue` inviting it. Nothing is held meanwhile: no
 * transaction, no connection, no admission slot (a slow sender costs only its own socket).
 */
export const jsonBodyOf =
  (rule: BodyRule): RequestHandler =>
  (req, res, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !hasBody(req)) return next();
    const refused = refusal(req, rule);
    if (refused) return next(refused);
    sendContinue(req, res);
    readBody(req, rule)
      .then(parseJson)
      .then((body) => {
        req.body = body;
        next();
      }, next);
  };

export const jsonBody: RequestHandler = jsonBodyOf(API_BODY);
