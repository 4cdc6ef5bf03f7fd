import type { HealthReport } from '@tms/contract';
import { isDatabaseReady } from '../../db/client.js';
import type { Database } from '../../db/database.js';

export const READY_TIMEOUT_MS = 1000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function checkDatabase(db: Database): Promise<{ up: boolean; latencyMs: number }> {
  const started = performance.now();
  const up = await within(isDatabaseReady(db), READY_TIMEOUT_MS).catch(() => false);
  return { up, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
}

export async function healthReport(db: Database, version: string, startedAt: number): Promise<HealthReport> {
  const database = await checkDatabase(db);
  return {
    status: database.up ? 'ok' : 'degraded',
    checks: { database: { status: database.up ? 'up' : 'down', latencyMs: database.latencyMs } },
    version,
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
  };
}
