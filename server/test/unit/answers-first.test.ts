import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { answersFirst } from '../../src/http/answers-first.js';

// The order in which node's event loop runs a new request's steps and the I/O that came in with
// it (src/http/answers-first.ts): no server, no database; a loopback socket stands for the
// database's connection.

const requestOf = (method: string) => ({ method }) as IncomingMessage;
const response = {} as ServerResponse;

async function connectedPair(): Promise<{ near: net.Socket; far: net.Socket; close(): void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const far = net.connect(port, '127.0.0.1');
  const near = await accepted;
  await new Promise<void>((resolve) =>
    far.readyState === 'open' ? resolve() : far.once('connect', resolve),
  );
  return {
    near,
    far,
    close: () => {
      far.destroy();
      near.destroy();
      server.close();
    },
  };
}

describe('answersFirst', () => {
  it('starts a write after the answers that arrive while it is parsed, a read at once', async () => {
    const { near, far, close } = await connectedPair();
    const order: string[] = [];
    const listener = answersFirst((req) => order.push(req.method ?? ''));
    // Called from an I/O callback, as node's HTTP parser calls it (the poll phase). The answer is
    // on the loopback socket before the callback returns: the next poll reads it.
    const answered = new Promise<void>((resolve) =>
      near.once('data', () => {
        listener(requestOf('POST'), response);
        listener(requestOf('GET'), response);
        near.once('data', () => {
          order.push('answer');
          resolve();
        });
        far.write('answer');
      }),
    );
    far.write('request');
    await answered;
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // One setImmediate would have started the POST in this turn, before the answer was read.
    expect(order).toEqual(['GET', 'answer', 'POST']);
    close();
  });
});
