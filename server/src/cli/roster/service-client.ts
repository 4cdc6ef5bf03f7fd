import { createReadStream } from 'node:fs';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { ErrorEnvelopeSchema, type FieldError } from '@tms/contract';

/** Longer than any answer of the service (a request's deadline is seconds): a dead connection, not a slow one. */
const SILENT_FOR_MS = 120_000;
/** The largest JSON answer read whole: an import lists at most 1,000 errors and 1,000 warnings. */
const ANSWER_BYTES_MAX = 32 * 1024 * 1024;

export type Upload = { file: string; size: number; contentType: string; onSent(bytes: number): void };

export type Request = { url: URL; method: 'GET' | 'POST'; token: string; accept: string; upload?: Upload };

/**
 * Node's http rather than fetch: the answer arrives as soon as the service sends it, while the file
 * is still going up (a 401, 403 or 413 does not wait for the rest), and the bytes sent can be counted.
 */
export function send(request: Request): Promise<IncomingMessage> {
  const { url, upload } = request;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = transport.request(url, {
      method: request.method,
      headers: {
        authorization: `Bearer ${request.token}`,
        accept: request.accept,
        'user-agent': 'tms-roster',
        ...(upload && { 'content-type': upload.contentType, 'content-length': String(upload.size) }),
      },
    });
    outgoing.setTimeout(SILENT_FOR_MS, () =>
      outgoing.destroy(new Error(`${url.origin} sent nothing for ${SILENT_FOR_MS / 1000} s`)),
    );
    // After the answer, the connection's errors (the service closing it on a refused upload) are moot.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    const source = upload ? createReadStream(upload.file) : undefined;
    outgoing.once('response', (response) => {
      answered = true;
      if (source && !source.closed) {
        source.unpipe(outgoing);
        source.destroy();
        response.once('close', () => outgoing.destroy());
      }
      resolve(response);
    });
    if (!source || !upload) {
      outgoing.end();
      return;
    }
    let sent = 0;
    source.on('data', (chunk) => {
      sent += chunk.length;
      upload.onSent(sent);
    });
    source.once('error', (error) => outgoing.destroy(error));
    source.pipe(outgoing);
  });
}

export async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response) {
    bytes += (chunk as Buffer).length;
    if (bytes > ANSWER_BYTES_MAX) throw new Error(`the answer is over ${ANSWER_BYTES_MAX} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export type Answer = { status: number; headers: IncomingHttpHeaders; body: unknown };

/** The answer's body as JSON, or as text when it is not JSON. */
export async function readJson(response: IncomingMessage): Promise<Answer> {
  const text = await readText(response);
  const status = response.statusCode ?? 0;
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not the service's JSON (a proxy's page): kept as text, for errorOf to show.
  }
  return { status, headers: response.headers, body };
}

export type ServiceError = { status: number; code: string; message: string; details: FieldError[] };

/** The service's error envelope, or whatever stood in front of it (a proxy's page) said plainly. */
export function errorOf(answer: Answer): ServiceError {
  const parsed = ErrorEnvelopeSchema.safeParse(answer.body);
  if (parsed.success) {
    const { code, message, details = [] } = parsed.data.error;
    return { status: answer.status, code, message, details };
  }
  const raw = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? '');
  return { status: answer.status, code: `HTTP ${answer.status}`, message: raw.slice(0, 300), details: [] };
}

/** A path of the service under the base URL, which may carry a prefix (a proxy's `/api`). */
export function endpoint(
  base: string,
  path: string,
  query: Record<string, string | string[] | undefined> = {},
) {
  const url = new URL(`${base.replace(/\/+$/, '')}${path}`);
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      url.searchParams.append(name, one);
  }
  return url;
}
