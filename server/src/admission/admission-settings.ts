/**
 * How much database work one process admits at once, and how it is shared.
 *
 * - `slots`: requests doing database work at once (the request pool's size). Admitting no more
 *   than the pool has connections means a request never waits inside the driver, where nothing
 *   can bound or shed it, and never queues behind another request's statement on a connection.
 * - `share`: slots one key (a tenant, or a caller outside tenants) may hold at once, so that one
 *   tenant's burst always leaves room for the others.
 * - `writes`: writes of one tenant at once. They wait for the tenant's row lock one after the
 *   other: beyond a few in flight, one more adds nothing but a connection held idle while it waits.
 * - `maxWaitMs`: the longest a request waits for its turn. Past it, or when the work queued ahead
 *   says it would be, the request is refused at once (429 TENANT_BUSY when its key is over its
 *   share, 503 SERVICE_OVERLOADED when the process is full) with a Retry-After, well inside the
 *   request's deadline: a fast "later" instead of a slow failure that holds what others need.
 */
export type AdmissionSettings = {
  slots: number;
  share: number;
  writes: number;
  maxWaitMs: number;
  /**
   * A grant held this long waits on a database that does not answer in time (the service's work
   * lasts milliseconds): requests that would wait behind it are refused 503 SERVICE_UNAVAILABLE.
   * Unset: grants are long by nature (downloads), and only a deadline tells.
   */
  slowAfterMs?: number;
};

/** For a pool of 10: the settings a process takes by default (config.ts derives them from the pool). */
export const DEFAULT_ADMISSION: AdmissionSettings = {
  slots: 10,
  share: 5,
  writes: 3,
  maxWaitMs: 1000,
  slowAfterMs: 1000,
};

/**
 * Downloads (the member export) hold their connection, of the long pool, while the client reads:
 * two at once per process, one per tenant, refused at once beyond that.
 */
export const DOWNLOADS: AdmissionSettings = { slots: 2, share: 1, writes: 1, maxWaitMs: 0 };
