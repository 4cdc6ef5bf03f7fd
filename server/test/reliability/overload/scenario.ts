import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type postgres from 'postgres';
import { HttpClient, type Outcome } from './http-client.js';
import { openLoop, steady } from './open-loop.js';
import { type Admin, makeSchool, type School, superAdminToken } from './schools.js';

export type OverloadOptions = {
  baseUrl: string;
  secret: string;
  superAdmin: string;
  /** A direct connection to the service's database, for its session count and its backends. */
  sql: postgres.Sql;
  database: string;
  capacityMs?: number;
  beforeMs?: number;
  burstMs?: number;
  afterMs?: number;
  /** The burst's arrival rate, as a multiple of the capacity measured first. */
  burstFactor?: number;
  /** The other schools, each at its usual pace (reads and writes per second). */
  usualSchools?: number;
  usualReadsPerSecond?: number;
  usualWritesPerSecond?: number;
  burstCallers?: number;
  /** CPU seconds used so far by the service (all its processes), to report its load per phase. */
  serviceCpu?: () => number;
};

export type Phase = 'before' | 'burst' | 'after';
export type Tagged = Outcome & { school: 'busy' | 'other'; kind: 'read' | 'write'; phase: Phase };

export type OverloadRun = {
  /** Writes a second the busy school's 8 admins are served, waiting for their answers, under the usual load. */
  capacity: number;
  /** The same, measured first, before any other school's load. */
  capacityAlone: number;
  /**
   * The same as `capacity`, measured again once the phase after the burst has ended: reported
   * beside it, for the machine's drift within the run.
   */
  capacityAfter: number;
  burstRate: number;
  phases: { beforeMs: number; burstMs: number; afterMs: number };
  /** performance.now() of the phase boundaries. */
  burstStart: number;
  burstEnd: number;
  outcomes: Tagged[];
  sessionsOpenedDuringBurst: number;
  sessionsOpenedAfter: number;
  /** CPU used in each phase, in cores: the service's processes, and this load generator. */
  cpu: Record<'capacity' | Phase, { service: number; load: number }>;
  /** pg_stat_activity of the service's backends, sampled every second from the burst on. */
  activity: { t: number; states: Record<string, number> }[];
};

const SERVICE = 'tenant-membership-service';
const WRITE_OK = new Set([201, 204]);

/** A school's members come and go: an add, then a removal of someone added earlier. */
class Churn {
  private readonly added: string[] = [];
  constructor(
    private readonly client: HttpClient,
    private readonly school: School,
  ) {}

  async add(admin: Admin, dueAt?: number): Promise<Outcome> {
    const email = `m-${randomBytes(6).toString('hex')}@school.test`;
    const outcome = await this.client.send(
      'POST',
      `/tenants/${this.school.tenantId}/memberships`,
      admin.token,
      { role: 'STUDENT', email },
      dueAt,
    );
    if (outcome.status === 201) this.added.push(String(outcome.data?.tenantMembershipId));
    return outcome;
  }

  /**
   * Removes someone added earlier (who stays to be removed if the removal is refused for load);
   * adds instead when nobody is left to remove.
   */
  async next(admin: Admin, n: number, dueAt?: number): Promise<Outcome> {
    const id = n % 2 === 1 ? this.added.shift() : undefined;
    if (!id) return this.add(admin, dueAt);
    const outcome = await this.client.send(
      'DELETE',
      `/tenants/${this.school.tenantId}/memberships/${id}`,
      admin.token,
      undefined,
      dueAt,
    );
    if (outcome.status !== 204 && outcome.status !== 404) this.added.push(id);
    return outcome;
  }
}

const sessions = async (sql: postgres.Sql, database: string) => {
  const [row] = await sql<
    { n: string }[]
  >`select sessions as n from pg_stat_database where datname = ${database}`;
  return Number(row?.n ?? 0);
};

/**
 * Five schools: four at their usual pace (reads of their member list, members added and removed),
 * and one whose admins add and remove members at `burstFactor` times the rate its writes can be
 * served, measured first in the same run with 8 admins waiting for their answers. The burst's
 * callers arrive whatever the answers (an open loop), each under its own rate limit.
 */
/**
 * Writes served a second to `admins`, each waiting for its answer before its next (a closed loop),
 * over `ms`; the first second warms up and is not counted. `mark` is called as counting starts and ends.
 */
async function measureCapacity(churn: Churn, admins: Admin[], ms: number, mark: () => void): Promise<number> {
  let measuring = false;
  let served = 0;
  const end = performance.now() + ms;
  let from = 0;
  const warm = setTimeout(() => {
    measuring = true;
    from = performance.now();
    mark();
  }, 1000);
  await Promise.all(
    admins.map(async (admin) => {
      for (let n = 0; performance.now() < end; n++) {
        const outcome = await churn.next(admin, n);
        if (measuring && WRITE_OK.has(outcome.status)) served++;
      }
    }),
  );
  clearTimeout(warm);
  mark();
  return served / ((performance.now() - from) / 1000);
}

export async function runOverload(options: OverloadOptions): Promise<OverloadRun> {
  const capacityMs = options.capacityMs ?? 6000;
  const phases = {
    beforeMs: options.beforeMs ?? 5000,
    burstMs: options.burstMs ?? 15_000,
    afterMs: options.afterMs ?? 15_000,
  };
  const factor = options.burstFactor ?? 3;
  const client = new HttpClient(options.baseUrl);
  try {
    const superToken = await superAdminToken(options.secret, options.superAdmin);
    const usualCount = options.usualSchools ?? 4;
    const readsPerSecond = options.usualReadsPerSecond ?? 30;
    const writesPerSecond = options.usualWritesPerSecond ?? 4;
    // Enough admins per school that none passes the default rate limit (600 a minute) over the run.
    const usualAdmins = 8;
    // Enough callers that none passes its rate limit in the burst (3 × 800/s over 15 s is 375 each).
    const burstCallers = options.burstCallers ?? 96;
    const busy = await makeSchool(client, options.secret, superToken, 'busy', 8 * 4 + burstCallers);
    const others = await Promise.all(
      Array.from({ length: usualCount }, (_, n) =>
        makeSchool(client, options.secret, superToken, `usual-${n}`, usualAdmins),
      ),
    );
    const busyChurn = new Churn(client, busy);
    // Each capacity is measured by 8 admins of its own: 8 admins that have just measured one have
    // used most of their rate limit's minute (600 requests each), and would be refused 429 in the
    // next, which would then measure the limit, not the service.
    const [capacityAloneAdmins, capacityAdmins, capacityAfterAdmins, busyUsualAdmins] = [0, 1, 2, 3].map(
      (n) => busy.admins.slice(8 * n, 8 * (n + 1)),
    ) as [Admin[], Admin[], Admin[], Admin[]];
    const burstAdmins = busy.admins.slice(8 * 4);

    const serviceCpu = options.serviceCpu ?? (() => 0);
    const loadCpu = () => {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1e6;
    };
    const marks: { at: number; service: number; load: number }[] = [];
    const mark = () => marks.push({ at: performance.now(), service: serviceCpu(), load: loadCpu() });
    const coresBetween = (from: number, to: number) => {
      const a = marks[from];
      const b = marks[to];
      if (!a || !b) return { service: 0, load: 0 };
      const seconds = (b.at - a.at) / 1000;
      return { service: (b.service - a.service) / seconds, load: (b.load - a.load) / seconds };
    };
    // The same, alone: before any other school's load.
    const capacityAlone = await measureCapacity(
      new Churn(client, busy),
      capacityAloneAdmins,
      capacityMs,
      () => {},
    );
    const outcomes: Tagged[] = [];
    const pending: Promise<unknown>[] = [];
    // Known once the capacity is: until then the usual load only warms up, and is not judged.
    let burstStart = Number.POSITIVE_INFINITY;
    let burstEnd = Number.POSITIVE_INFINITY;
    let judgedFrom = Number.POSITIVE_INFINITY;
    let judgedUntil = Number.POSITIVE_INFINITY;
    const phaseOf = (at: number): Phase | undefined =>
      at < judgedFrom || at >= judgedUntil
        ? undefined
        : at < burstStart
          ? 'before'
          : at < burstEnd
            ? 'burst'
            : 'after';
    const keep = (school: Tagged['school'], kind: Tagged['kind']) => (outcome: Outcome) => {
      const phase = phaseOf(outcome.dueAt);
      if (phase) outcomes.push({ ...outcome, school, kind, phase });
    };
    let usualRunning = true;
    const usual = (school: School, churn: Churn, tag: Tagged['school']) => [
      steady(
        readsPerSecond,
        () => usualRunning,
        (n, dueAt) => {
          const admin = school.admins[n % school.admins.length] as Admin;
          pending.push(
            client
              .send('GET', `/tenants/${school.tenantId}/memberships?limit=20`, admin.token, undefined, dueAt)
              .then(keep(tag, 'read')),
          );
        },
      ),
      steady(
        writesPerSecond,
        () => usualRunning,
        (n, dueAt) => {
          const admin = school.admins[n % school.admins.length] as Admin;
          pending.push(churn.next(admin, n, dueAt).then(keep(tag, 'write')));
        },
      ),
    ];
    // Every school at its usual pace from the start: the capacity is measured under that load.
    const loops = [
      ...others.flatMap((school) => usual(school, new Churn(client, school), 'other')),
      ...usual({ ...busy, admins: busyUsualAdmins }, busyChurn, 'busy'),
    ];

    // Capacity under the usual load: 8 admins, each waiting for its answer before the next write.
    const capacity = await measureCapacity(new Churn(client, busy), capacityAdmins, capacityMs, mark);
    const burstRate = Math.round(capacity * factor);

    judgedFrom = performance.now();
    burstStart = judgedFrom + phases.beforeMs;
    burstEnd = burstStart + phases.burstMs;
    const sessionsAtStart = await sessions(options.sql, options.database);
    mark();
    const activity: OverloadRun['activity'] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const now = performance.now();
        if (now >= burstStart) {
          const rows = await options.sql<{ state: string; n: number }[]>`
            select coalesce(state, '?') || coalesce(' / ' || wait_event, '') as state, count(*)::int as n
            from pg_stat_activity where application_name = ${SERVICE} and datname = ${options.database}
            group by 1`;
          activity.push({
            t: Math.round(now - burstStart),
            states: Object.fromEntries(rows.map((r) => [r.state, r.n])),
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, burstStart - performance.now()));
    mark();
    const sessionsAtBurst = await sessions(options.sql, options.database);
    await openLoop(burstRate, phases.burstMs, (n, dueAt) => {
      const admin = burstAdmins[n % burstAdmins.length] as Admin;
      pending.push(busyChurn.next(admin, n, dueAt).then(keep('busy', 'write')));
    });
    mark();
    const sessionsAtBurstEnd = await sessions(options.sql, options.database);
    await new Promise((resolve) => setTimeout(resolve, burstEnd + phases.afterMs - performance.now()));
    judgedUntil = performance.now();
    mark();
    // The capacity again, under the same usual load, now that the burst is over.
    const capacityAfter = await measureCapacity(
      new Churn(client, busy),
      capacityAfterAdmins,
      capacityMs,
      () => {},
    );
    usualRunning = false;
    await Promise.all(loops);
    await Promise.all(pending);
    sampling = false;
    await sampler;
    const sessionsAtEnd = await sessions(options.sql, options.database);
    void sessionsAtStart;
    return {
      capacity,
      capacityAlone,
      capacityAfter,
      burstRate,
      phases,
      burstStart,
      burstEnd,
      outcomes,
      sessionsOpenedDuringBurst: sessionsAtBurstEnd - sessionsAtBurst,
      sessionsOpenedAfter: sessionsAtEnd - sessionsAtBurstEnd,
      cpu: {
        capacity: coresBetween(0, 1),
        before: coresBetween(2, 3),
        burst: coresBetween(3, 4),
        after: coresBetween(4, 5),
      },
      activity,
    };
  } finally {
    client.close();
  }
}
