import { describe, expect, it } from 'vitest';
import {
  MAX_ATTEMPTS,
  nextAttemptAt,
  RETRY_DELAYS_MS,
} from '../../src/modules/webhooks/delivery-schedule.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('the retry schedule', () => {
  it('is the Standard Webhooks one: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then none', () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => {
      const next = nextAttemptAt(i + 1, T0, () => 0.5);
      return next ? next.getTime() - T0.getTime() : null;
    });
    expect(delays).toEqual([5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, null]);
    expect(RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0) / HOUR).toBeCloseTo(27.6, 1);
  });

  it('jitters each delay by at most 10% either way', () => {
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      const low = nextAttemptAt(i + 1, T0, () => 0)?.getTime() ?? 0;
      const high = nextAttemptAt(i + 1, T0, () => 0.999_999)?.getTime() ?? 0;
      expect(low - T0.getTime()).toBe(Math.round(delay * 0.9));
      expect(high - T0.getTime()).toBeLessThanOrEqual(delay * 1.1);
      expect(high - T0.getTime()).toBeGreaterThan(delay * 1.099);
    }
  });
});
