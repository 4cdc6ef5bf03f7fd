import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { WEBHOOK_RESPONSE_KEPT_BYTES } from '@tms/contract';
import {
  type CheckedTarget,
  checkTarget,
  type Resolver,
  type TargetPolicy,
  TargetRefused,
  TargetUnresolved,
} from './target-address.js';
import type { TargetAgents } from './target-agents.js';

/** What one attempt came to, as the delivery records it. */
export type AttemptOutcome = {
  /** The receiver answered 2xx. */
  delivered: boolean;
  /** The receiver's status, null when there was no HTTP answer. */
  statusCode: number | null;
  /** Why there was no HTTP answer ('timeout', 'connection refused', 'refused: …'); null if there was one. */
  error: string | null;
  /** At most WEBHOOK_RESPONSE_KEPT_BYTES of the answer's body; null if it had none. */
  response: string | null;
};

export type SenderOptions = {
  policy: TargetPolicy;
  /** Name resolution; the system's by default. Tests stub it: they never reach a real DNS. */
  resolve?: Resolver;
  /** Until the TCP connection is made. */
  connectTimeoutMs?: number;
  /** Until the status and the kept part of the body are in, connection included. */
  totalTimeoutMs?: number;
  /** Keep-alive connections per checked address; without, a fresh connection per attempt. */
  agents?: TargetAgents;
};

export const CONNECT_TIMEOUT_MS = 5_000;
export const TOTAL_TIMEOUT_MS = 10_000;

export type WebhookRequest = { url: string; headers: Record<string, string>; body: string };

/**
 * POSTs one delivery, safely for a URL that someone else chose:
 * - the URL is checked again now (its name may resolve elsewhere than at registration), and the
 *   connection goes to the address that was checked, never to a second resolution (DNS rebinding);
 * - redirects are not followed (a 3xx would send us, and the signed body, where the check did not);
 * - bounded in time (a receiver that accepts and never answers holds one endpoint's queue, not
 *   the worker), and in memory: the body is read up to 1 KB, then the connection is dropped.
 * Never throws: every failure is an outcome, recorded on the delivery.
 */
export async function sendWebhook(request: WebhookRequest, options: SenderOptions): Promise<AttemptOutcome> {
  let target: CheckedTarget;
  try {
    target = await checkTarget(request.url, options.policy, options.resolve);
  } catch (error) {
    if (error instanceof TargetUnresolved) return failure(`unresolved: ${error.message}`);
    if (error instanceof TargetRefused) return failure(`refused: ${error.message}`);
    return failure(`refused: ${(error as Error).message}`);
  }
  const timeouts = {
    connectMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    totalMs: options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS,
  };
  const agent = options.agents?.agentFor(target) ?? false;
  const first = await post(target, request, timeouts, agent);
  // A kept connection that the receiver closed while it was idle fails at once, before any answer:
  // the request never reached it, so it is sent again, once, on a new connection (Node's own advice
  // for `reusedSocket`), rather than backing off for a failure of ours.
  return first.staleConnection ? post(target, request, timeouts, agent) : first;
}

const failure = (error: string): AttemptOutcome => ({
  delivered: false,
  statusCode: null,
  error,
  response: null,
});

type PostOutcome = AttemptOutcome & { staleConnection?: boolean };

function post(
  target: CheckedTarget,
  request: WebhookRequest,
  timeouts: { connectMs: number; totalMs: number },
  agent: Agent | false,
): Promise<PostOutcome> {
  const { url, address, family } = target;
  // Whatever resolution the client would make answers the checked address: no second lookup.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const body = Buffer.from(request.body, 'utf8');
  const options: RequestOptions = {
    method: 'POST',
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    headers: {
      ...request.headers,
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'tenant-membership-service-webhooks',
    },
    lookup: pinned,
    // Only connections made to this checked address (see TargetAgents), or a fresh one.
    agent,
  };
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    /** `reusable`: the answer was read to its end, so the connection may serve the next attempt. */
    const settle = (outcome: PostOutcome, reusable = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      if (!reusable) req.destroy();
      resolve(outcome);
    };
    const req: ClientRequest = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options, (res) =>
      readKept(res, (response, whole) =>
        settle(
          {
            delivered: res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300,
            statusCode: res.statusCode ?? null,
            error: null,
            response,
          },
          whole,
        ),
      ),
    );
    const connectTimer = setTimeout(() => settle(failure('connect timeout')), timeouts.connectMs);
    const totalTimer = setTimeout(() => settle(failure('timeout')), timeouts.totalMs);
    req.once('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (error: Error & { code?: string }) =>
      settle({
        ...failure(describeError(error)),
        staleConnection: req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE'),
      }),
    );
    req.end(body);
  });
}

/**
 * Reads at most WEBHOOK_RESPONSE_KEPT_BYTES of the body, then stops: a receiver cannot fill our
 * memory. `whole`: the body ended within that (the connection is then free for the next attempt).
 */
function readKept(res: IncomingMessage, done: (kept: string | null, whole: boolean) => void) {
  const decoder = new StringDecoder('utf8');
  let kept = '';
  let bytes = 0;
  const finish = (whole: boolean) => {
    // Cut at a character boundary (the decoder holds a split one back); PostgreSQL text refuses NUL.
    const text = kept.replace(/\0/g, '');
    done(text === '' ? null : text, whole);
  };
  res.on('data', (chunk: Buffer) => {
    const room = WEBHOOK_RESPONSE_KEPT_BYTES - bytes;
    const part = chunk.subarray(0, room);
    bytes += part.length;
    kept += decoder.write(part);
    if (bytes >= WEBHOOK_RESPONSE_KEPT_BYTES || part.length < chunk.length) finish(false);
  });
  res.once('end', () => finish(true));
  // The status is in: a body cut short is still an answer.
  res.on('error', () => finish(false));
  res.once('close', () => finish(false));
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** A short reason for the endpoint's owner, never a stack. */
function describeError(error: Error & { code?: string }): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'unreachable';
    case 'ETIMEDOUT':
      return 'connect timeout';
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_STATUS':
      return 'not an HTTP answer';
  }
  if (error.code && TLS_CODES.test(error.code)) return `tls: ${error.message}`.slice(0, 200);
  return (error.message || error.code || 'error').slice(0, 200);
}
