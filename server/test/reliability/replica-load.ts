import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type postgres from 'postgres';

export type Outcome = {
  /** Which of the clients sent it (each has one request in flight at most). */
  client: number;
  /** Sent on a connection kept alive from an earlier request. */
  reused: boolean;
  method: string;
  path: string;
  /** 0: no HTTP answer (refused, reset, or the client's own timeout in `error`). */
  status: number;
  error?: string;
  startedAt: number;
  endedAt: number;
};

const TIMEOUT_MS = 10_000;
export const ok = (o: Outcome) => o.status >= 200 && o.status < 300;

/**
 * A bounded set of clients, each on its own tenant, in a closed loop over kept-alive connections:
 * three reads (the caller, a page of members, the tenant) then a create, whose 201 is remembered
 * and read back by the next round, through whichever process the balancer picks. Answers are kept
 * without their bodies, so that a long run stays small.
 */
export class ReplicaLoad {
  readonly outcomes: Outcome[] = [];
  /** Memberships whose create answered 201 (id -> email): each must be in the database. */
  readonly created = new Map<string, string>();
  /** One kept-alive connection per client, as separate callers would have. */
  private readonly agents: Agent[];
  private okCount = 0;
  private running = false;
  private clients: Promise<void>[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly tenantIds: string[],
    private readonly clientCount: number,
    /** A pause between rounds, so that the machine is busy but not saturated; 0: as fast as it goes. */
    private readonly pauseMs = 0,
  ) {
    this.agents = Array.from({ length: clientCount }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  }

  start(): this {
    this.running = true;
    const run = `${process.pid}-${Date.now().toString(36)}`;
    this.clients = Array.from({ length: this.clientCount }, (_, n) => this.loop(n, run));
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
    for (const agent of this.agents) agent.destroy();
  }

  /** Answers to requests sent in [from, to), performance-time ms. */
  sentBetween(from: number, to = Number.POSITIVE_INFINITY): Outcome[] {
    return this.outcomes.filter((o) => o.startedAt >= from && o.startedAt < to);
  }

  /** Resolves once `count` more requests have been answered 2xx: the load is flowing. */
  async answered(count: number, timeoutMs = 20_000): Promise<void> {
    const target = this.okCount + count;
    const deadline = performance.now() + timeoutMs;
    while (this.okCount < target) {
      if (performance.now() > deadline) throw new Error(`fewer than ${count} answers in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async loop(client: number, run: string): Promise<void> {
    const tenant = this.tenantIds[client % this.tenantIds.length];
    const base = `/tenants/${tenant}/memberships`;
    let last: string | undefined;
    for (let round = 0; this.running; round++) {
      await this.send(client, 'GET', '/me');
      await this.send(client, 'GET', `${base}?limit=5`);
      await this.send(client, 'GET', last ? `${base}/${last}` : `/admin/tenants/${tenant}`);
      const email = `replica-${run}-${client}-${round}@example.test`;
      const created = await this.send(client, 'POST', base, { role: 'STUDENT', email });
      if (created.status === 201) {
        last = (JSON.parse(created.body) as { data: { tenantMembershipId: string } }).data.tenantMembershipId;
        this.created.set(last, email);
      }
      if (this.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
  }

  private send(
    client: number,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Outcome & { body: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const startedAt = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      // A reset can surface on both the request and the response: the first word is the answer.
      const settle = (status: number, text: string, error?: string) => {
        if (settled) return;
        settled = true;
        const outcome = {
          client,
          reused: req.reusedSocket,
          method,
          path,
          status,
          startedAt,
          endedAt: performance.now(),
          ...(error && { error }),
        };
        this.outcomes.push(outcome);
        if (ok(outcome)) this.okCount++;
        resolve({ ...outcome, body: text });
      };
      const req = request(`${this.baseUrl}${path}`, {
        method,
        agent: this.agents[client],
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(payload && {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          }),
        },
      });
      req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error('timeout')));
      req.once('error', (error: NodeJS.ErrnoException) => settle(0, '', error.code ?? error.message));
      req.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.once('end', () => settle(res.statusCode ?? 0, text));
        res.once('error', (error: NodeJS.ErrnoException) => settle(0, '', error.code ?? error.message));
      });
      req.end(payload);
    });
  }
}

/** One tenant per client, created through `baseUrl` by a super administrator. */
export async function createTenants(baseUrl: string, token: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const slug = `replicas-${process.pid}-${Date.now().toString(36)}-${n}`;
    const res = await fetch(`${baseUrl}/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: slug, slug, owner: { email: `${slug}@example.test` } }),
    });
    if (res.status !== 201) throw new Error(`creating a tenant answered ${res.status}: ${await res.text()}`);
    ids.push(((await res.json()) as { data: { tenantId: string } }).data.tenantId);
  }
  return ids;
}

export const describeFailures = (failed: Outcome[]) =>
  failed.map(
    (o) =>
      `client ${o.client}: ${o.method} ${o.path} -> ${o.status || o.error}` +
      ` (${o.reused ? 'kept-alive' : 'new'} connection)`,
  );

/** The acknowledged creates (id -> email) that the database does not hold as answered. */
export async function missingCreates(sql: postgres.Sql, created: Map<string, string>): Promise<string[]> {
  const ids = [...created.keys()];
  const rows = await sql<{ id: string; email: string }[]>`
    select m.id, u.email from tenant_memberships m join users u on u.id = m.user_id
    where m.id = any(${ids}::uuid[])`;
  const found = new Map(rows.map((r) => [r.id, r.email]));
  return ids.filter((id) => found.get(id) !== created.get(id));
}
