import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/logger.js';
import type { PurgedTenant } from '../../src/modules/tenants/tenant-deletion.service.js';
import { scheduleTenantPurge } from '../../src/modules/tenants/tenant-purge-schedule.js';

const MINUTE = 60_000;
const tenant = (id: string): PurgedTenant => ({ id, slug: id, name: id, deletedAt: new Date(0) });
const fakeLogger = () => ({ info: vi.fn(), warn: vi.fn() });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the purge in the server (TENANT_PURGE_INTERVAL_MINUTES)', () => {
  it('runs at start, then every interval, and logs what it purged', async () => {
    const purge = vi.fn(async () => [tenant('a')]);
    const logger = fakeLogger();
    const schedule = scheduleTenantPurge(purge, 60, logger as unknown as Logger);
    await vi.advanceTimersByTimeAsync(0);
    expect(purge).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledWith({ tenantIds: ['a'] }, expect.stringMatching(/^purged 1 /));
    await vi.advanceTimersByTimeAsync(59 * MINUTE);
    expect(purge).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(purge).toHaveBeenCalledTimes(2);
    await schedule.stop();
    await vi.advanceTimersByTimeAsync(600 * MINUTE);
    expect(purge).toHaveBeenCalledTimes(2);
  });

  it('never runs twice at once, and stop waits for the run under way', async () => {
    let finish!: () => void;
    const purge = vi.fn(() => new Promise<PurgedTenant[]>((resolve) => (finish = () => resolve([]))));
    const schedule = scheduleTenantPurge(purge, 1, fakeLogger() as unknown as Logger);
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    expect(purge).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = schedule.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });

  it('logs a failed run and tries again at the next one', async () => {
    const purge = vi.fn().mockRejectedValueOnce(new Error('database gone')).mockResolvedValue([]);
    const logger = fakeLogger();
    const schedule = scheduleTenantPurge(purge, 5, logger as unknown as Logger);
    await vi.advanceTimersByTimeAsync(0);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    expect(purge).toHaveBeenCalledTimes(2);
    expect(logger.info).not.toHaveBeenCalled();
    await schedule.stop();
  });

  it('does nothing with an interval of 0 (npm run purge does it instead)', async () => {
    const purge = vi.fn(async () => []);
    const schedule = scheduleTenantPurge(purge, 0, fakeLogger() as unknown as Logger);
    await vi.advanceTimersByTimeAsync(7 * 24 * 60 * MINUTE);
    expect(purge).not.toHaveBeenCalled();
    await schedule.stop();
  });

  it('never keeps the process alive', () => {
    vi.useRealTimers();
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const schedule = scheduleTenantPurge(async () => [], 60, fakeLogger() as unknown as Logger);
    const timers = [...timeouts.mock.results, ...intervals.mock.results].map(
      (r) => r.value as NodeJS.Timeout,
    );
    expect(timers).toHaveLength(2);
    for (const timer of timers) expect(timer.hasRef()).toBe(false);
    timeouts.mockRestore();
    intervals.mockRestore();
    return schedule.stop();
  });
});
