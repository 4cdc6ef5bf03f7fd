import postgres from 'postgres';
import type { HostAddress, HostRole } from './host-selection.js';
import { connectTo, failedSocket } from './pool-socket.js';

/** As long as the pool's own connection attempts may take (connect_timeout): a silent host is unreachable. */
export const PROBE_TIMEOUT_MS = 3000;

/** Seen in pg_stat_activity beside the pool's connections, and told apart from them. */
const PROBE_APPLICATION_NAME = 'tenant-membership-service host check';

/**
 * Whether the server at `address` takes writes: a short-lived connection of its own, with the
 * credentials and TLS settings of `url` (the same URL for that host), asks it. It connects where
 * the pool would (the address), not where postgres.js reads the URL to be. `transaction_read_only` is on in a hot standby
 * and on a primary set to `default_transaction_read_only`; either way a write would fail there
 * (25006). Never rejects: a failure or no answer within PROBE_TIMEOUT_MS is `unreachable`.

 *
 * One connection attempt. postgres.js connects again at once, for ever, when a peer closes the
 * connection during the startup without an ErrorResponse (a peer that is not PostgreSQL); its
 * second socket fails here, which fails the query.
 */
export async function probeHost(
  url: string,
  address: HostAddress,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<HostRole> {
  let attempts = 0;
  const socket = () =>
    attempts++ === 0
      ? connectTo(address)
      : failedSocket(Object.assign(new Error('closed during the startup'), { code: 'CONNECTION_CLOSED' }));
  // `socket` is documented in postgres.js's README ("Custom socket") but missing from its types.
  const options: postgres.Options<Record<string, never>> & { socket: typeof socket } = {
    socket,
    max: 1,
    connect_timeout: Math.ceil(timeoutMs / 1000),
    prepare: false,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: PROBE_APPLICATION_NAME },
  };
  const client = postgres(url, options);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HostRole>((resolve) => {
    timer = setTimeout(() => resolve('unreachable'), timeoutMs);
    timer.unref();
  });
  const asked = client
    .unsafe<{ read_only: string; in_recovery: boolean }[]>(
      `select current_setting('transaction_read_only') as read_only, pg_is_in_recovery() as in_recovery`,
    )
    .then(
      ([row]): HostRole => (row && row.read_only === 'off' && !row.in_recovery ? 'writable' : 'read-only'),
    )
    .catch((): HostRole => 'unreachable');
  try {
    return await Promise.race([asked, timeout]);
  } finally {
    clearTimeout(timer);
    // A query still in flight (the timeout won) is failed with CONNECTION_DESTROYED: `asked` has
    // caught it. The end itself is not awaited beyond its own bound, nor allowed to reject.
    client.end({ timeout: 0 }).catch(() => {});
  }
}
