/**
 * Reads driver errors of both PGlite and postgres.js, which drizzle wraps in its own error with
 * the driver's error as `cause`.
 */
type DriverError = { code?: unknown; constraint?: unknown; constraint_name?: unknown; errno?: unknown };

function* causes(error: unknown): Generator<DriverError> {
  let current = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    yield current as DriverError;
    current = (current as { cause?: unknown }).cause;
  }
}

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (const e of causes(error)) {
    if (e.code === '23505') return e.constraint === constraint || e.constraint_name === constraint;
  }
  return false;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'QUERY_TIMEOUT',
  'NO_WRITABLE_HOST', // host-selection.ts: every host of a multi-host URL is down or a standby
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout (a tenant held by a long change)
  '25P03', // idle_in_transaction_session_timeout
  // A write reached a node that takes none: a hot standby (the primary failed over, or the URL or
  // a balancer points at the wrong node), or a primary set read-only. The service never opens a
  // read-only transaction itself, so this is the database's state, not a bad query; it passes.
  '25006', // read_only_sql_transaction
  // Not an outage, but as transient: PostgreSQL broke a lock cycle by aborting this transaction,
  // and the same request sent again succeeds.
  '40P01', // deadlock_detected
  '40001', // serialization_failure
]);

/** True when the error means "the database cannot serve this now; try again", as opposed to a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of causes(error)) {
    if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  }
  return false;
}
