import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits for what another process or connection does in its own time (a log line, a lock waiter, a
 * 503), polling `condition` every `everyMs`, rather than for a time to pass; fails naming `what`
 * once `limitMs` has gone by without it.
 */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  limitMs: number,
  everyMs = 25,
): Promise<void> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > limitMs) throw new Error(`not within ${limitMs} ms: ${what}`);
    await sleep(everyMs);
  }
}
