import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../src/modules/webhooks/delivery-sender.js';
import type { Resolver } from '../../src/modules/webhooks/target-address.js';
import { TargetAgents } from '../../src/modules/webhooks/target-agents.js';

// The delivery worker's connections: kept alive between the deliveries of a queue, but only to the
// address each attempt's own check resolved to, and a kept one the receiver closed is replaced.
const POLICY = { allowPrivateNetworks: true, requireHttps: false };

/** A receiver on the loopback addresses, counting connections and where they came in. */
class CountingReceiver {
  readonly connections: string[] = [];
  requests = 0;
  /** Decides, per request (1-based), whether to cut its connection instead of answering. */
  cut: (request: number) => boolean = () => false;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<CountingReceiver> {
    let receiver: CountingReceiver | undefined;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => receiver?.handle(req, res));
    receiver = new CountingReceiver(server);
    server.on('connection', (socket: Socket) => receiver?.track(socket));
    // `::` takes both ::1 and 127.0.0.1 (as ::ffff:127.0.0.1); only loopback addresses are used.
    server.listen(0, '::');
    await once(server, 'listening');
    return receiver;
  }

  get port() {
    return (this.server.address() as AddressInfo).port;
  }

  private track(socket: Socket) {
    this.connections.push(socket.localAddress ?? '');
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    this.requests += 1;
    const request = this.requests;
    req.resume();
    req.once('end', () => {
      if (this.cut(request)) req.socket.destroy();
      else res.writeHead(204).end();
    });
  }

  async close() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const delivery = { headers: { 'webhook-id': 'msg_1' }, body: '{"type":"test"}' };

describe('the delivery worker’s connections', () => {
  let receiver: CountingReceiver;
  let agents: TargetAgents;
  beforeEach(async () => {
    receiver = await CountingReceiver.start();
    agents = new TargetAgents();
  });
  afterEach(async () => {
    agents.destroy();
    await receiver.close();
  });

  it('sends the deliveries of a queue over one kept connection', async () => {
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    for (let n = 0; n < 5; n++) {
      const outcome = await sendWebhook({ url, ...delivery }, { policy: POLICY, agents });
      expect(outcome).toMatchObject({ delivered: true, statusCode: 204 });
    }
    expect(receiver.requests).toBe(5);
    expect(receiver.connections).toHaveLength(1);
  });

  it('never reuses a connection made to another address than the one this attempt checked', async () => {
    let answer = '127.0.0.1';
    const resolve: Resolver = async () => [{ address: answer, family: answer.includes(':') ? 6 : 4 }];
    const url = `http://hooks.example.test:${receiver.port}/hooks`;
    const send = () => sendWebhook({ url, ...delivery }, { policy: POLICY, agents, resolve });

    expect(await send()).toMatchObject({ delivered: true });
    answer = '::1';
    expect(await send()).toMatchObject({ delivered: true });
    answer = '127.0.0.1';
    expect(await send()).toMatchObject({ delivered: true });
    // A new connection when the name moved to ::1; the one to 127.0.0.1 again when it came back.
    expect(receiver.connections).toEqual(['::ffff:127.0.0.1', '::1']);
  });

  it('sends again, on a new connection, when the receiver closed the kept one under the request', async () => {
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    receiver.cut = (request) => request === 2;
    expect(await sendWebhook({ url, ...delivery }, { policy: POLICY, agents })).toMatchObject({
      delivered: true,
    });
    expect(await sendWebhook({ url, ...delivery }, { policy: POLICY, agents })).toMatchObject({
      delivered: true,
      statusCode: 204,
    });
    expect(receiver.requests).toBe(3);
    expect(receiver.connections).toHaveLength(2);
  });

  it('does not send again when a new connection fails: that is the receiver’s failure', async () => {
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    receiver.cut = () => true;
    const outcome = await sendWebhook({ url, ...delivery }, { policy: POLICY, agents });
    expect(outcome).toMatchObject({ delivered: false, statusCode: null, error: 'connection reset' });
    expect(receiver.requests).toBe(1);
  });

  it('without agents, makes a connection per attempt', async () => {
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    for (let n = 0; n < 3; n++) await sendWebhook({ url, ...delivery }, { policy: POLICY });
    expect(receiver.connections).toHaveLength(3);
  });
});
