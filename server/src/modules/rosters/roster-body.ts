import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { contract, ROSTER_BYTES_MAX, ROSTER_ROWS_MAX } from '@tms/contract';
import { checkZodSchema } from '@ts-rest/core';
import type { NextFunction, Request, Response } from 'express';
import {
  type AppError,
  InvalidJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from '../../errors/index.js';
import { type RosterFile, readRosterCsv } from './roster-file.js';

/*
 * The body of POST /tenants/:tenantId/roster-imports: up to 10 MiB of CSV or JSON, read after the
 * access decision and outside any transaction (the import takes the tenant's lock only once the
 * file is read: modules/rosters/roster-imports.service.ts). A CSV body is parsed as it arrives,
 * never held whole; a JSON one is read up to the limit, then parsed.
 */

/** A CSV body as it was read: the file, and its SHA-256 (what an Idempotency-Key compares). */
export type RosterUpload = { kind: 'csv'; file: RosterFile; sha256: string } | { kind: 'json' };

const uploads = new WeakMap<object, RosterUpload>();

/** Any request of the route, however ts-rest has typed its query and body. */
type AnyRequest = Request<Record<string, string>, never, unknown, unknown>;

const MEDIA_TYPES = 'The request body must be text/csv (UTF-8) or application/json';
const TOO_LARGE = `the ${ROSTER_BYTES_MAX / 1024 / 1024} MiB limit`;

// Fatal: invalid UTF-8 is a broken body, not text to repair with U+FFFD. It drops a BOM.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What can be refused from the headers alone, before a byte of the body is read. */
function refusal(req: AnyRequest): AppError | undefined {
  if (!req.is(['text/csv', 'application/json'])) return new UnsupportedMediaTypeError(MEDIA_TYPES);
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i
    .exec(req.headers['content-type'] ?? '')?.[1]
    ?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    return new UnsupportedMediaTypeError(`${MEDIA_TYPES}; save the file as "CSV UTF-8"`);
  // No decompression: a few KB of gzip can inflate to gigabytes.
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity')
    return new UnsupportedMediaTypeError(`${MEDIA_TYPES}, not compressed`);
  if (Number(req.headers['content-length'] ?? 0) > ROSTER_BYTES_MAX)
    return new PayloadTooLargeError(TOO_LARGE);
  return undefined;
}

/** The path, query and headers as ts-rest is about to check them: invalid, the body is not worth reading. */
function inputIsValid(req: AnyRequest): boolean {
  const route = contract.rosterImports.create;
  return (
    checkZodSchema(req.params, route.pathParams, { passThroughExtraKeys: true }).success &&
    checkZodSchema(req.query, route.query).success &&
    checkZodSchema(req.headers, route.headers, { passThroughExtraKeys: true }).success
  );
}

/**
 * The chunks of the body, hashed as they pass. Not the request's own iterator: leaving that one
 * early (the reader stops at a broken quote, or past a limit) destroys the request, and with it the
 * socket the answer has to go out on.
 */
async function* hashed(req: IncomingMessage, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    hash.update(chunk as Buffer);
    yield chunk as Buffer;
  }
}

/** A client gone mid-body: nobody will read the answer; this one just ends the request quietly. */
const cutShort = () =>
  new ValidationFailedError([{ path: 'body', message: 'the body ended before it was complete' }]);

async function readCsv(req: AnyRequest): Promise<RosterUpload> {
  const hash = createHash('sha256');
  try {
    const file = await readRosterCsv(hashed(req, hash), {
      maxBytes: ROSTER_BYTES_MAX,
      maxRows: ROSTER_ROWS_MAX,
    });
    return { kind: 'csv', file, sha256: hash.digest('hex') };
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    if (req.destroyed || req.readableAborted) throw cutShort();
    throw error;
  }
}

/** Up to the limit and not a byte further (a larger body is refused as soon as it passes it). */
async function readJson(req: AnyRequest): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      size += (chunk as Buffer).length;
      if (size > ROSTER_BYTES_MAX) throw new PayloadTooLargeError(TOO_LARGE);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw cutShort();
  }
  if (size === 0) return {};
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks, size));
  } catch {
    throw new InvalidJsonError();
  }
  if (text.trimStart()[0] !== '{') throw new InvalidJsonError();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidJsonError();
  }
  // The contract's max would say 400; too many rows is the same 413 as for a CSV file.
  const rows = (body as { rows?: unknown }).rows;
  if (Array.isArray(rows) && rows.length > ROSTER_ROWS_MAX)
    throw new PayloadTooLargeError(`the ${ROSTER_ROWS_MAX.toLocaleString('en-US')}-row limit`);
  return body;
}

/**
 * The route's own body reader (the general JSON one stops at 100 KiB and knows no CSV). It runs
 * after the access decision, as the general one does: a refused caller's body is never read.
 */
export function readRosterBody(req: AnyRequest, res: Response, next: NextFunction): void {
  const refused = refusal(req);
  if (refused) {
    next(refused);
    return;
  }
  if (!inputIsValid(req)) {
    // What validation checks, with the body it is about to check: a stand-in, never read.
    req.body = { rows: [] };
    next();
    return;
  }
  // A client that waits for `100 Continue` is told to send now (http/http-server.ts holds node's
  // own back until the access checks have passed, and the general body reader skips this route).
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  const reading = req.is('text/csv')
    ? readCsv(req).then((upload) => {
        uploads.set(req, upload);
        // ts-rest validates the JSON body's shape; a CSV file's rows are checked by the import.
        req.body = { rows: [] };
      })
    : readJson(req).then((body) => {
        uploads.set(req, { kind: 'json' });
        req.body = body;
      });
  reading.then(() => {
    // The reader stopped early (a broken quote): the rest is never read, so the connection cannot be reused.
    if (!req.complete) res.setHeader('Connection', 'close');
    next();
  }, next);
}

/** The body readRosterBody read for this request. */
export function rosterUploadOf(req: object): RosterUpload {
  const upload = uploads.get(req);
  if (!upload) throw new Error('rosterUploadOf used on a request whose body readRosterBody did not read');
  return upload;
}

/**
 * What an Idempotency-Key's fingerprint compares for an import (pipeline/answers.ts hashes
 * `req.body`): the query too, as validated (defaults filled in), since a dry run and an apply of
 * the same file are different requests; a CSV file by its SHA-256.
 */
export function fingerprintBody(req: { body: unknown }, query: unknown): unknown {
  const upload = rosterUploadOf(req);
  return { query, body: upload.kind === 'csv' ? { 'text/csv': upload.sha256 } : req.body };
}
