import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isUniqueViolation } from '../../src/db/db-errors.js';

/** What reaches the error handler: drizzle's error, with the driver's error as its cause. */
const fromDriver = (driverError: object) =>
  Object.assign(new Error('Failed query: delete from tenant_memberships'), { cause: driverError });
const postgresError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('database errors that mean "not now" (503 SERVICE_UNAVAILABLE)', () => {
  it('a write on a read-only node (25006: a hot standby, a failover under way) is a 503, not a 500', () => {
    const readOnly = postgresError('25006', 'cannot execute INSERT in a read-only transaction');
    expect(isDatabaseUnavailable(fromDriver(readOnly))).toBe(true);
    expect(isDatabaseUnavailable(readOnly)).toBe(true);
  });

  it('no writable host among those of a multi-host URL is a 503', () => {
    const none = postgresError('NO_WRITABLE_HOST', 'no writable PostgreSQL host: a:5432 unreachable');
    expect(isDatabaseUnavailable(fromDriver(none))).toBe(true);
  });

  it('the outages it already knew stay 503s, and a bad query stays an error', () => {
    for (const code of [
      'ECONNREFUSED',
      'CONNECTION_CLOSED',
      'CONNECTION_DESTROYED',
      '57P01',
      '08006',
      '57014',
      '55P03',
    ]) {
      expect(isDatabaseUnavailable(fromDriver(postgresError(code, code))), code).toBe(true);
    }
    for (const code of ['23505', '42P01', '22P02', '25001', undefined]) {
      expect(isDatabaseUnavailable(fromDriver({ code })), String(code)).toBe(false);
    }
    const duplicate = fromDriver({ code: '23505', constraint_name: 'tenants_slug_unique' });
    expect(isUniqueViolation(duplicate, 'tenants_slug_unique')).toBe(true);
  });
});
