/**
 * When a failed delivery is tried again: the Standard Webhooks (Svix) schedule, counted from the
 * previous attempt. A receiver that is down for a deploy gets its events seconds later; one down
 * for a night still gets them the next morning; after about a day and a half of trying (≈ 27.5 h
 * in all) the delivery is FAILED and its endpoint's queue moves on.
 */
export const RETRY_DELAYS_MS = [
  5_000, // 5 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  5 * 3_600_000, // 5 h
  10 * 3_600_000, // 10 h
  10 * 3_600_000, // 10 h
] as const;

/** The first attempt, then one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * ±10%: endpoints that failed together (a receiver's outage) do not all come back at the same
 * second, and neither do the deliveries of processes that restarted together.
 */
export const JITTER = 0.1;

/** An endpoint that has not had a success for this long when an attempt fails is disabled. */
export const DISABLE_AFTER_FAILING_MS = 24 * 3_600_000;

/**
 * When to try again after the `attempts`-th attempt failed, or null when it was the last one.
 * `random` is Math.random's shape (tests pass `() => 0.5` for the exact schedule).
 */
export function nextAttemptAt(
  attempts: number,
  failedAt: Date,
  random: () => number = Math.random,
): Date | null {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return null;
  const jittered = delay * (1 + JITTER * (2 * random() - 1));
  return new Date(failedAt.getTime() + Math.round(jittered));
}
