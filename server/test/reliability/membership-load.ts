import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Answer, type Caller, dataOf, sleep } from './timed-fetch.js';

/**
 * Authenticated load on one tenant: GET /me, a page of memberships, then a membership created and
 * deleted, in a loop per worker. Every answer is kept; every acknowledged write is remembered.
 */
export class MembershipLoad {
  readonly answers: Answer[] = [];
  /**
   * Memberships whose create answered 201: every other one is kept, the rest deleted at once; a
   * DELETE that did not answer 204 leaves it 'unknown' (an answer lost in the outage may hide
   * either outcome).
   */
  readonly acknowledged = new Map<string, 'kept' | 'deleted' | 'unknown'>();
  private running = false;
  private workers: Promise<void>[] = [];

  constructor(
    private readonly call: Caller,
    private readonly tenantId: string,
  ) {}

  start(workers: number): void {
    this.running = true;
    this.workers = Array.from({ length: workers }, (_, n) => this.loop(n));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** Answers to requests sent at or after `from` (and before `to`), in performance-time ms. */
  sentBetween(from: number, to = Number.POSITIVE_INFINITY): Answer[] {
    return this.answers.filter((a) => a.startedAt >= from && a.startedAt < to);
  }

  private async loop(worker: number): Promise<void> {
    const base = `/tenants/${this.tenantId}/memberships`;
    for (let round = 0; this.running; round++) {
      await this.send('GET', '/me');
      await this.send('GET', `${base}?limit=5`);
      const created = await this.send('POST', base, {
        role: 'STUDENT',
        email: `load-${worker}-${randomUUID().slice(0, 12)}@example.test`,
      });
      if (created.status === 201) {
        const id = dataOf<{ tenantMembershipId: string }>(created).tenantMembershipId;
        this.acknowledged.set(id, round % 2 === 0 ? 'kept' : 'unknown');
        if (round % 2 === 1) {
          const removed = await this.send('DELETE', `${base}/${id}`);
          if (removed.status === 204) this.acknowledged.set(id, 'deleted');
        }
      }
      // A short pause between rounds, so that 2 cores are not only serving this loop.
      await sleep(5);
    }
  }

  private async send(method: string, path: string, body?: unknown): Promise<Answer> {
    const answer = await this.call(method, path, body);
    this.answers.push(answer);
    return answer;
  }
}

export const now = () => performance.now();

/** Latency summary of a set of answers. */
export function latency(answers: Answer[]) {
  const ms = answers.map((a) => a.ms).sort((x, y) => x - y);
  return {
    count: ms.length,
    max: ms.at(-1) ?? 0,
    p50: ms[Math.floor(ms.length / 2)] ?? 0,
  };
}

/** status[/code] -> count, for messages. */
export function tally(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status === 0 ? `no answer (${a.error})` : `${a.status}${a.code ? ` ${a.code}` : ''}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
