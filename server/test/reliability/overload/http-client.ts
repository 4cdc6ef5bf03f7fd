import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** One answer, as the overload run judges it. */
export type Outcome = {
  /** 0: no HTTP answer (refused, reset, or past the client's patience). */
  status: number;
  /** Why there was no answer (status 0): the socket's error code, or the client's patience. */
  error?: string;
  /** Sent twice: its first try met a reused keep-alive socket the server had just closed. */
  retried?: true;
  code?: string;
  retryAfter?: string;
  /** Whether an error answer came in the service's envelope. */
  enveloped: boolean;
  /** When the request was due (open loop: the arrival), and when its answer was complete. */
  dueAt: number;
  endedAt: number;
  ms: number;
  data?: Record<string, unknown>;
};

/**
 * A bare keep-alive client: fetch (undici) costs several times more CPU per request, and the load
 * shares two cores with the service and PostgreSQL. Sockets are not capped low: people arrive
 * whatever the answers, so a slow service must see every arrival, not a queue in the client.
 */
export class HttpClient {
  private readonly agent: Agent;
  private readonly url: URL;

  /**
   * The agent's `timeout` is what makes it honour the server's `Keep-Alive: timeout=5` (it then
   * drops a connection idle for 4 s; the server closes at 6 s). Without one, node's agent keeps
   * idle connections for ever, and a burst that picks one just as the server closes it loses a
   * write to a reset: the race every careful client avoids (undici honours the hint by default).
   */
  constructor(
    baseUrl: string,
    private readonly patienceMs = 15_000,
  ) {
    this.url = new URL(baseUrl);
    this.agent = new Agent({ keepAlive: true, maxSockets: 2048, maxFreeSockets: 256, timeout: patienceMs });
  }

  send(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    dueAt = performance.now(),
  ): Promise<Outcome> {
    return this.attempt(method, path, token, body, dueAt, method === 'GET');
  }

  /**
   * One try. A keep-alive socket the server closed as idle while this request was being written to
   * it is reset with nothing answered: node's documentation has a client send an idempotent request
   * again then (`request.reusedSocket`), as browsers and undici do. A GET is sent again once.
   */
  private attempt(
    method: string,
    path: string,
    token: string,
    body: unknown,
    dueAt: number,
    mayRetry: boolean,
  ): Promise<Outcome> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: Omit<Outcome, 'dueAt' | 'endedAt' | 'ms'>) => {
        if (settled) return;
        settled = true;
        const endedAt = performance.now();
        resolve({ ...outcome, dueAt, endedAt, ms: endedAt - dueAt });
      };
      const req = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          headers,
          agent: this.agent,
          timeout: this.patienceMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error: NodeJS.ErrnoException) =>
            done({ status: 0, error: `${error.code ?? error.message} mid-answer`, enveloped: false }),
          );
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const retryAfter = res.headers['retry-after'];
            let parsed: { success?: boolean; data?: Record<string, unknown>; error?: { code?: string } } = {};
            // A page read whole is not looked into (the load is on the same cores as the service):
            // what is judged of it is its status. Errors and created resources are parsed.
            const wanted = status >= 300 || method === 'POST';
            try {
              parsed = wanted && chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
            } catch {
              // not JSON: not enveloped
            }
            done({
              status,
              ...(parsed.error?.code && { code: parsed.error.code }),
              ...(retryAfter !== undefined && { retryAfter }),
              enveloped:
                parsed.success === true || (parsed.success === false && parsed.error?.code !== undefined),
              ...(parsed.data && { data: parsed.data }),
            });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('patience')));
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        if (mayRetry && req.reusedSocket && error.code === 'ECONNRESET') {
          settled = true;
          resolve(
            this.attempt(method, path, token, body, dueAt, false).then((o) => ({ ...o, retried: true })),
          );
          return;
        }
        const reused = req.reusedSocket ? ' on a reused socket' : '';
        done({ status: 0, error: `${error.code ?? error.message}${reused}`, enveloped: false });
      });
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
