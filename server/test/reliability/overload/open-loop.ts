import { performance } from 'node:perf_hooks';

/**
 * Arrivals at a steady rate, whatever the answers (an open loop): each is due at its own time and
 * fired then, never held back by the answers still awaited. `fire` gets the arrival's number and
 * its due time (latencies are counted from it, so a late tick is the client's delay, not hidden).
 */
export function openLoop(
  ratePerSecond: number,
  durationMs: number,
  fire: (n: number, dueAt: number) => void,
): Promise<void> {
  const started = performance.now();
  const interval = 1000 / ratePerSecond;
  const total = Math.floor((durationMs / 1000) * ratePerSecond);
  let sent = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const elapsed = performance.now() - started;
      while (sent < total && sent * interval <= elapsed) {
        fire(sent, started + sent * interval);
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(1, Math.min(5, interval)));
    };
    tick();
  });
}

/** Arrivals at a steady rate for as long as `running` says, whatever the answers. */
export async function steady(
  ratePerSecond: number,
  running: () => boolean,
  fire: (n: number, dueAt: number) => void,
): Promise<void> {
  const started = performance.now();
  const interval = 1000 / ratePerSecond;
  let sent = 0;
  while (running()) {
    const elapsed = performance.now() - started;
    while (sent * interval <= elapsed) {
      fire(sent, started + sent * interval);
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(5, interval))));
  }
}
