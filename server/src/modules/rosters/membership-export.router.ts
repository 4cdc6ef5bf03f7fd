import { Readable } from 'node:stream';
import { contract } from '@tms/contract';
import type { Request, Response } from 'express';
import type { Logger } from '../../logger.js';
import { download, routes } from '../../pipeline/handlers.js';
import { type MembershipExport, openMembershipExport } from './membership-export.service.js';

/**
 * A download, not an envelope: the 200 is the file itself, streamed. Errors until the first byte
 * are enveloped as on every route (the service reads the first chunk before this answers).
 */
export const membershipExportRoutes = (logger: Logger) =>
  routes(contract.membershipExport, {
    export: download(async ({ db, requester }, { req, res, query }) => {
      const file = await openMembershipExport(db, requester, query);
      res.setHeader('Content-Type', file.contentType);
      res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
      // ts-rest pipes a stream body into the response; the contract types the body as the text it becomes.
      return { status: 200 as const, body: streamed(file, req, res, logger) as unknown as string };
    }),
  });

/**
 * The chunks as a stream that ts-rest pipes into `res`. Piping is the backpressure: each chunk is
 * written while `res.write` returns true; when it returns false the stream pauses until 'drain',
 * and no further chunk is asked of the database meanwhile. So at most a chunk or two of rows are
 * in memory, however large the tenant.
 */
function streamed(download: MembershipExport, req: Request, res: Response, logger: Logger): Readable {
  if (req.method === 'HEAD') {
    download.chunks.return?.().catch((error: unknown) => logger.warn({ err: error }, 'closing an export'));
    return Readable.from([]);
  }
  const body = Readable.from(download.chunks, { objectMode: false });
  const context = { requestId: req.requestId, filename: download.filename };
  // A client gone (or the deadline's 503 sent meanwhile): stop reading, which frees the connection.
  if (res.writableEnded || res.destroyed) {
    body.destroy();
    return body;
  }
  res.once('close', () => {
    if (res.writableFinished) return;
    logger.info(context, 'membership export abandoned by the client');
    body.destroy();
  });
  // Past the first byte an error cannot be enveloped, and ending the response normally would pass
  // a short file for a whole one: the connection is cut, so the client sees a broken download.
  body.once('error', (error) => {
    logger.error({ ...context, err: error }, 'membership export failed after its first byte');
    res.destroy();
  });
  return body;
}
