/**
 * Whether the database answers in time, as the work admitted sees it: a request reached its
 * deadline lately, or a grant has been held longer than the service's work ever takes. The slots
 * are full then because the work in them waits on the database, not because a tenant sends too
 * much: admission refuses 503 SERVICE_UNAVAILABLE, not 429 TENANT_BUSY, which would send its
 * callers looking for a fault of theirs.
 */
export class DatabasePace {
  private deadlineAt = Number.NEGATIVE_INFINITY;
  /** When the latest grant to be answered in time began: the database answered what it asked then. */
  private answeredSince = Number.NEGATIVE_INFINITY;
  /** When each grant held now began. */
  private readonly held = new Set<{ since: number }>();

  /**
   * `slowAfterMs`: a grant held this long waits on a database that does not answer in time.
   * Unset: grants are long by nature (downloads), and only a deadline tells.
   */
  constructor(
    private readonly slowAfterMs: number | undefined,
    private readonly now: () => number,
  ) {}

  /**
   * A grant begins; the returned function ends it and tells how long it was held. `answered`: the
   * database answered its work.
   */
  hold(): (answered: boolean) => number {
    const grant = { since: this.now() };
    this.held.add(grant);
    return (answered) => {
      this.held.delete(grant);
      const now = this.now();
      const heldMs = now - grant.since;
      if (answered && !this.measuresOutage(heldMs)) {
        this.answeredSince = Math.max(this.answeredSince, grant.since);
      }
      return heldMs;
    };
  }

  /** A request reached its deadline: the database is slow to answer, or not answering. */
  noteDeadline(): void {
    this.deadlineAt = this.now();
  }

  /**
   * A grant held this long measures the outage, not the pace of its key: learnt, it would refuse
   * the key's next requests for a while after the database is back.
   */
  measuresOutage(heldMs: number): boolean {
    return this.slowAfterMs !== undefined && heldMs >= this.slowAfterMs;
  }

  /**
   * The database is not answering in time: requests that would wait behind its work are refused.
   * A deadline counts until work begun after it is answered in time (a failover is over; an
   * answer to work begun before may have come just before the outage). A grant held long counts
   * while it is held, answers to others or not: a session the outage left behind may hold its
   * tenant's lock, and the writes queued behind it wait on the database, not on their tenant.
   */
  slow(): boolean {
    const now = this.now();
    if (now - this.deadlineAt < SLOW_DATABASE_MS && this.answeredSince <= this.deadlineAt) return true;
    if (this.slowAfterMs === undefined) return false;
    for (const grant of this.held) if (now - grant.since >= this.slowAfterMs) return true;
    return false;
  }
}

/** After a request reached its deadline, for this long the database counts as not answering. */
const SLOW_DATABASE_MS = 5000;
