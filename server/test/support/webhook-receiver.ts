import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookPayload } from '@tms/contract';
import { Webhook } from 'standardwebhooks';

/** One request as the receiver got it, verified with the secret of its path. */
export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The `webhook-id` header: the delivery. */
  webhookId: string;
  payload: WebhookPayload | undefined;
  /** `new Webhook(secret).verify(body, headers)` passed. */
  verified: boolean;
  verifyError?: string;
  /** The client went away before the answer was sent (a killed sender, a timeout). */
  aborted: boolean;
  /** How many requests of the same path were in flight when it arrived, itself included. */
  concurrent: number;
};

/** What to answer: a status (and body), after a delay, or nothing until `release()`. */
export type Answer =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  | 'hold';

type Held = { res: ServerResponse; request: ReceivedRequest };

/**
 * A webhook receiver on 127.0.0.1 for the tests: it records every request, verifies its signature
 * as a real receiver would (standardwebhooks), counts requests in flight per path (to catch two
 * deliveries to one endpoint at once), and answers as told: fail, answer slowly, hold.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Decides each answer; 204 by default. */
  answer: (request: ReceivedRequest) => Answer = () => ({ status: 204 });
  /** The most requests in flight at once, per path. */
  readonly maxInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private readonly secrets = new Map<string, string>();
  private readonly held: Held[] = [];
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly defaultSecret: string | undefined,
  ) {}

  static async start(options: { secret?: string } = {}): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => receiver?.handle(req.method ?? '', req.url ?? '/', req.headers, chunks, res));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port, options.secret);
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The secret that verifies requests to `path` (the default one otherwise). */
  setSecret(path: string, secret: string) {
    this.secrets.set(path, secret);
  }

  to(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Answers every held request (and later ones follow `answer` again). */
  release(answer: { status: number; body?: string } = { status: 204 }) {
    for (const { res } of this.held.splice(0)) {
      if (!res.destroyed) res.writeHead(answer.status).end(answer.body ?? '');
    }
  }

  get heldCount(): number {
    return this.held.filter(({ res }) => !res.destroyed).length;
  }

  /** Resolves once `condition` holds (checked at every request and end of one); rejects after `timeoutMs`. */
  async waitFor(condition: () => boolean, timeoutMs = 20_000, what = 'the receiver'): Promise<void> {
    if (condition()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${what}: condition not met in ${timeoutMs} ms (${this.requests.length} requests)`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  async close() {
    for (const { res } of this.held.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    chunks: Buffer[],
    res: ServerResponse,
  ) {
    const body = Buffer.concat(chunks).toString('utf8');
    const webhookId = String(headers['webhook-id'] ?? '');
    const concurrent = (this.inFlight.get(path) ?? 0) + 1;
    this.inFlight.set(path, concurrent);
    this.maxInFlight.set(path, Math.max(this.maxInFlight.get(path) ?? 0, concurrent));
    const request: ReceivedRequest = {
      method,
      path,
      headers,
      body,
      webhookId,
      payload: parse(body),
      verified: false,
      aborted: false,
      concurrent,
    };
    const secret = this.secrets.get(path) ?? this.defaultSecret;
    try {
      if (!secret) throw new Error('no secret for this path');
      new Webhook(secret).verify(body, {
        'webhook-id': webhookId,
        'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(headers['webhook-signature'] ?? ''),
      });
      request.verified = true;
    } catch (error) {
      request.verifyError = (error as Error).message;
    }
    this.requests.push(request);
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      this.inFlight.set(path, (this.inFlight.get(path) ?? 1) - 1);
      this.notify();
    };
    res.once('finish', finished);
    // A client that drops the connection mid-answer: node still emits 'finish' then. The socket
    // emits 'error' before the answer's 'close'; the listener goes with the answer, not the
    // kept-alive socket.
    const socket = res.socket;
    const dropped = () => {
      request.aborted = true;
      this.notify();
    };
    socket?.once('error', dropped);
    res.once('close', () => {
      socket?.off('error', dropped);
      if (!res.writableFinished) request.aborted = true;
      finished();
    });
    const answer = this.answer(request);
    if (answer === 'hold') this.held.push({ res, request });
    this.notify();
    if (answer === 'hold') return;
    const send = () => {
      if (!res.destroyed) res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  }

  private notify() {
    for (const check of [...this.waiters]) check();
  }
}

function parse(body: string): WebhookPayload | undefined {
  try {
    return JSON.parse(body) as WebhookPayload;
  } catch {
    return undefined;
  }
}
