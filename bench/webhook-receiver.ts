import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

type Delivery = { id: string; type: string; tenantId: string | null; sequence: number; lagMs: number };

/**
 * The bench's receiver: verifies each delivery's signature as a real receiver would, and keeps
 * what the report needs (lag from the event's commit, duplicates, order per tenant).
 */
export async function startReceiver() {
  let verifier: Webhook | undefined;
  const deliveries: Delivery[] = [];
  const seen = new Set<string>();
  const lastSequence = new Map<string, number>();
  let duplicates = 0;
  let outOfOrder = 0;
  let badSignatures = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = req.headers as Record<string, string>;
      let event: { type: string; data: { tenantId: string | null; sequence: number; occurredAt: string } };
      try {
        event = (verifier ? verifier.verify(body, headers) : JSON.parse(body)) as typeof event;
      } catch {
        badSignatures += 1;
        res.writeHead(400).end();
        return;
      }
      const id = headers['webhook-id'] ?? '';
      if (seen.has(id)) {
        // At least once: a delivery sent again (its run was cut off before it was recorded). Its
        // order was judged when it first came.
        duplicates += 1;
        res.writeHead(204).end();
        return;
      }
      seen.add(id);
      const scope = event.data.tenantId ?? 'platform';
      if ((lastSequence.get(scope) ?? 0) >= event.data.sequence) outOfOrder += 1;
      lastSequence.set(scope, event.data.sequence);
      deliveries.push({
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
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    verifyWith: (secret: string) => {
      verifier = new Webhook(secret);
    },
    received: () => deliveries,
    duplicates: () => duplicates,
    outOfOrder: () => outOfOrder,
    badSignatures: () => badSignatures,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
