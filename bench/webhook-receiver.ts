import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export type Delivery = { id: string; type: string; tenantId: string | null; sequence: number; lagMs: number };
export type Received = {
  deliveries: Delivery[];
  duplicates: number;
  outOfOrder: number;
  badSignatures: number;
};

/** What the thread answers to (webhook-receiver-thread.mjs). */
type Request = { verifyWith: string } | { snapshot: true } | { close: true };

/**
 * The bench's receiver (webhook-receiver-thread.mjs): verifies each delivery's signature as a real
 * receiver would, and keeps what the report needs (lag from the event's commit, duplicates, order
 * per tenant).
 *
 * It runs on a thread of its own: on the load generator's event loop, its answers would wait
 * behind the requests being paced out, and that wait, not the service, would set the pace of
 * delivery (one delivery in flight per endpoint). A real receiver is another process too.
 */
export async function startReceiver() {
  const worker = new Worker(new URL('./webhook-receiver-thread.mjs', import.meta.url));
  const [port] = (await once(worker, 'message')) as [number];
  const ask = async <T>(request: Request): Promise<T> => {
    worker.postMessage(request);
    const [answer] = (await once(worker, 'message')) as [T];
    return answer;
  };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    verifyWith: (secret: string) => ask<true>({ verifyWith: secret }),
    received: () => ask<Received>({ snapshot: true }),
    close: async () => {
      await ask<true>({ close: true });
      await worker.terminate();
    },
  };
}
