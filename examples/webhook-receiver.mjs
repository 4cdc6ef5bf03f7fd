// A webhook receiver for the tenant membership service: plain node:http and the Standard Webhooks
// library (`npm install standardwebhooks`). It verifies every delivery, answers fast, skips
// deliveries it has already handled, and prints one JSON line per event.
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node examples/webhook-receiver.mjs
//
// WEBHOOK_SECRET is the endpoint's secret, shown once when it was created (or rotated).
// server/test/webhooks/delivery-safety.test.ts runs this file against the real delivery worker.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const { WEBHOOK_SECRET: secret, PORT: port = '4000' } = process.env;
if (!secret) {
  console.error('set WEBHOOK_SECRET to the endpoint secret (whsec_...)');
  process.exit(1);
}
const webhook = new Webhook(secret);

// Delivery is at least once: the same event can come twice (a retry after a lost answer, a
// server restart mid-send), always with the same `webhook-id`. Remember the ids handled. In
// production keep them where the effect of the event is stored, in the same transaction.
const handled = new Set();
const HANDLED_KEPT = 10_000;

/** What this receiver does with an event; yours does the real work (and is idempotent). */
function handle(id, event) {
  const { data } = event;
  process.stdout.write(
    `${JSON.stringify({ id, type: event.type, tenantId: data.tenantId, sequence: data.sequence, target: data.target })}\n`,
  );
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > 1_000_000) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    // Verify the raw body, exactly as received: a parsed and re-serialised body would not match.
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      // Checks the signature (any of them: during a rotation there are two) and that the
      // timestamp is within 5 minutes, which stops replays.
      event = webhook.verify(body, req.headers);
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('signature not verified');
      return;
    }
    const id = req.headers['webhook-id'];
    if (!handled.has(id)) {
      handle(id, event);
      handled.add(id);
      if (handled.size > HANDLED_KEPT) handled.delete(handled.values().next().value);
    }
    // Any 2xx within 10 seconds is a success; anything else is retried, with backoff.
    res.writeHead(204).end();
  });
});

server.listen(Number(port), '127.0.0.1', () => {
  console.warn(`listening on http://127.0.0.1:${server.address().port}`);
});
