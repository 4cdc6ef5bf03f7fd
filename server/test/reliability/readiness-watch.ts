import { type Answer, sleep, timedFetch } from './timed-fetch.js';

/**
 * Polls `GET /health/ready` as an orchestrator would, one probe at a time, and keeps every answer,
 * so that a test can ask when readiness turned and whether it ever lied.
 */
export class ReadinessWatch {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly baseUrl: string,
    private readonly intervalMs = 100,
  ) {
    this.loop = this.poll();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** The first answer with `status` to a probe sent at or after `from` (performance-time ms). */
  firstSince(from: number, status: number): Answer | undefined {
    return this.answers.find((a) => a.startedAt >= from && a.status === status);
  }

  /** Answers to probes sent at or after `from` and answered before `to`. */
  between(from: number, to: number): Answer[] {
    return this.answers.filter((a) => a.startedAt >= from && a.endedAt < to);
  }

  private async poll(): Promise<void> {
    while (this.running) {
      this.answers.push(await timedFetch(this.baseUrl, 'GET', '/health/ready', { timeoutMs: 10_000 }));
      await sleep(this.intervalMs);
    }
  }
}
