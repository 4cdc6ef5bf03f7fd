// The bench's receiver, on a thread of its own (started by webhook-receiver.ts). Plain JavaScript:
// a worker thread does not inherit the main thread's TypeScript loader.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { parentPort } from 'node:worker_threads';
import { Webhook } from 'standardwebhooks';

let verifier;
const received = { deliveries: [], duplicates: 0, outOfOrder: 0, badSignatures: 0 };
const seen = new Set();
const lastSequence = new Map();

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = verifier ? verifier.verify(body, req.headers) : JSON.parse(body);
    } catch {
      received.badSignatures += 1;
      res.writeHead(400).end();
      return;
    }
    const id = req.headers['webhook-id'] ?? '';
    if (seen.has(id)) {
      // At least once: a delivery sent again (its run was cut off before it was recorded). Its
      // order was judged when it first came.
      received.duplicates += 1;
      res.writeHead(204).end();
      return;
    }
    seen.add(id);
    const scope = event.data.tenantId ?? 'platform';
    if ((lastSequence.get(scope) ?? 0) >= event.data.sequence) received.outOfOrder += 1;
    lastSequence.set(scope, event.data.sequence);
    received.deliveries.push({
      id,
      type: event.type,
      tenantId: event.data.tenantId,
      sequence: event.data.sequence,
      lagMs: Date.now() - Date.parse(event.data.occurredAt),
    });
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');

parentPort.on('message', (request) => {
  if ('verifyWith' in request) {
    verifier = new Webhook(request.verifyWith);
    parentPort.postMessage(true);
  } else if ('snapshot' in request) {
    parentPort.postMessage(received);
  } else {
    server.closeAllConnections();
    server.close(() => parentPort.postMessage(true));
  }
});
parentPort.postMessage(server.address().port);
