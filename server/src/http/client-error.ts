import { randomUUID } from 'node:crypto';
import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ValidationFailedError } from '../errors/index.js';
import { errorEnvelope } from './error-envelope.js';

/**
 * Node answers a request it cannot even parse (a NUL in a header, a broken request line) with a
 * bare 400 before express sees it. This keeps that answer inside the envelope too.
 */
export function envelopeClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const refusal = new ValidationFailedError([], 'The request is not well-formed HTTP');
    const body = JSON.stringify(errorEnvelope(refusal, requestId));
    socket.end(
      [
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${requestId}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
