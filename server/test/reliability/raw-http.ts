import { connect } from 'node:net';

export type RawResponse = { status: number; headers: Record<string, string>; body: string };

/**
 * Sends bytes exactly as given: fetch and node:http refuse NUL bytes, bad methods and odd header
 * values before they ever reach the server, and those are what a fuzzer must send.
 */
export function rawRequest(port: number, request: Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(request);
  });
}

function parse(raw: Buffer): RawResponse {
  const text = raw.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(Buffer.byteLength(text.slice(0, split + 4), 'latin1'));
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status, headers, body: body.toString('utf8') };
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < body.length) {
    const lineEnd = body.indexOf('\r\n', offset);
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Builds a request with `Connection: close`, so that each request is one socket. */
export function buildRequest(
  method: string,
  target: string,
  headers: [string, string][],
  body: Buffer | undefined,
): Buffer {
  const head = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of headers) head.push(`${name}: ${value}`);
  if (body) head.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]);
}
