import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../db/client.js';
import type { Database, Executor } from '../../db/database.js';
import { rowsOf } from '../../db/rows.js';

/** What an attempt does its database work through while it holds an endpoint. */
export type ClaimedSession = {
  /** Reads the head (after the claim was taken, so it sees what the previous holder recorded). */
  read: Executor;
  /** Records the outcome, and commits it before the claim is let go. */
  write<T>(work: (tx: Executor) => Promise<T>): Promise<T>;
};

/**
 * One delivery in flight per endpoint, across every worker of every process: `withEndpoint` runs
 * `attempt` only while nobody else holds the endpoint, and answers false without running it if
 * somebody does (the caller tries another endpoint).
 */
export interface DeliveryClaims {
  withEndpoint(endpointId: string, attempt: (session: ClaimedSession) => Promise<void>): Promise<boolean>;
}

/** Picks the claim that fits the database: see the two classes below for why they differ. */
export function createDeliveryClaims(db: Database, kind: DatabaseHandle['kind']): DeliveryClaims {
  return kind === 'postgres' ? new AdvisoryLockClaims(db) : new InProcessClaims(db);
}

/** The class id of the endpoints' advisory locks (the first key; the endpoint's hash is the second). */
export const ENDPOINT_LOCK_CLASS = 7_271_014;

/**
 * Endpoints held by this process's own workers: they skip those without a round trip to the
 * database (and, on PGlite, this is the whole claim).
 */
class LocalHolds {
  private readonly held = new Set<string>();

  /** Taken synchronously, so that two workers of this process never both take one endpoint. */
  take(endpointId: string): boolean {
    if (this.held.has(endpointId)) return false;
    this.held.add(endpointId);
    return true;
  }

  release(endpointId: string) {
    this.held.delete(endpointId);
  }
}

/**
 * PostgreSQL, several processes: each attempt is one transaction holding a transaction-level
 * advisory lock on the endpoint, taken without waiting (a held endpoint is skipped, not queued
 * for). The lock is released by COMMIT or ROLLBACK, and by the server when the session ends, so a
 * process killed mid-send frees its endpoint at once, and another process takes it over on its next
 * poll: no lease to expire. A transaction-level lock also works through a transaction pooler,
 * where a session lock's unlock may reach another server connection.
 *
 * No row lock is held while the receiver answers: writers' outbox inserts take KEY SHARE on the
 * endpoint (the foreign key), and an endpoint's PATCH or DELETE would wait on a send.
 */
class AdvisoryLockClaims implements DeliveryClaims {
  private readonly local = new LocalHolds();

  constructor(private readonly db: Database) {}

  async withEndpoint(endpointId: string, attempt: (session: ClaimedSession) => Promise<void>) {
    if (!this.local.take(endpointId)) return false;
    try {
      return await this.db.transaction(async (tx) => {
        // The send keeps the transaction idle for up to 10 s: the service's 5 s bound
        // (SAFETY_TIMEOUTS) would end the session under it. Still bounded, so that a worker that
        // stalls cannot keep its endpoint forever. set_config(…, true) is SET LOCAL, with
        // parameters, in the lock's own statement: no round trip of its own.
        const [row] = rowsOf<{ locked: boolean }>(
          await tx.execute(sql`
            select set_config('idle_in_transaction_session_timeout', '30s', true),
              pg_try_advisory_xact_lock(${ENDPOINT_LOCK_CLASS}, hashtext(${endpointId}::uuid::text)) as locked`),
        );
        if (!row?.locked) return false;
        await attempt({ read: tx, write: (work) => work(tx) });
        return true;
      });
    } finally {
      this.local.release(endpointId);
    }
  }
}

/**
 * PGlite: one process (its data directory is locked) and one connection, which runs one
 * transaction at a time. A transaction held open across the send would stop every request of the
 * process for up to 10 s, so the claim is a set in memory, and the outcome is recorded in a short
 * transaction of its own.
 */
class InProcessClaims implements DeliveryClaims {
  private readonly local = new LocalHolds();

  constructor(private readonly db: Database) {}

  async withEndpoint(endpointId: string, attempt: (session: ClaimedSession) => Promise<void>) {
    if (!this.local.take(endpointId)) return false;
    try {
      await attempt({ read: this.db, write: (work) => this.db.transaction((tx) => work(tx)) });
      return true;
    } finally {
      this.local.release(endpointId);
    }
  }
}
