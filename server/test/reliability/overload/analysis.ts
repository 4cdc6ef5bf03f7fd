import type { OverloadRun, Phase, Tagged } from './scenario.js';

const ok = (o: Tagged) => (o.kind === 'read' ? o.status === 200 : o.status === 201 || o.status === 204);
/** A refusal of excess load, as the service must give it: 429 or 503, enveloped, with Retry-After. */
const shed = (o: Tagged) =>
  (o.status === 429 || o.status === 503) && o.enveloped && o.retryAfter !== undefined;

/**
 * ADMISSION_MAX_WAIT_MS (the server's default): the longest a write of the burst may still wait
 * for its turn after the burst's last arrival, and so how long the burst lasts on the server.
 */
const DRAIN_MS = 1000;

const quantile = (values: number[], q: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

export type Slice = {
  count: number;
  ok: number;
  okShare: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  /** status[ code] → count, of what did not succeed. */
  failures: Record<string, number>;
};

function slice(outcomes: Tagged[], seconds: number): Slice {
  const good = outcomes.filter(ok);
  const failures: Record<string, number> = {};
  for (const o of outcomes) {
    if (ok(o)) continue;
    const key = o.status === 0 ? `no answer (${o.error ?? '?'})` : `${o.status}${o.code ? ` ${o.code}` : ''}`;
    failures[key] = (failures[key] ?? 0) + 1;
  }
  const ms = outcomes.map((o) => o.ms);
  return {
    count: outcomes.length,
    ok: good.length,
    okShare: outcomes.length ? good.length / outcomes.length : 1,
    perSecond: good.length / seconds,
    p50: Math.round(quantile(ms, 0.5)),
    p99: Math.round(quantile(ms, 0.99)),
    max: Math.round(Math.max(0, ...ms)),
    failures,
  };
}

export type OverloadSummary = {
  capacity: number;
  capacityAlone: number;
  capacityAfter: number;
  burstRate: number;
  busyWrites: Record<Phase, Slice>;
  /**
   * The busy school's writes due once the burst's own queue has drained (DRAIN_MS after its end):
   * one due sooner may still meet the burst's writes waiting their turn, and be refused 429.
   */
  busyWritesOnceDrained: Slice;
  otherReads: Record<Phase, Slice>;
  otherWrites: Record<Phase, Slice>;
  /** The busy school's refusals during the burst: how many, how fast, and whether all were proper. */
  refusals: {
    count: number;
    proper: number;
    p50: number;
    p99: number;
    max: number;
    statuses: Record<string, number>;
  };
  /** Answers that were neither a success nor a proper refusal (another 5xx, no answer, a bare body). */
  improper: Record<string, number>;
  /** GETs sent again because their reused keep-alive socket was reset unanswered (http-client.ts). */
  retried: number;
  /**
   * Successful writes of the busy school during the burst, as a share of its capacity under the
   * usual load: the mean of the measures taken before and after the burst, so that a drift of the
   * machine between them touches the judgement less (one 6 s measure, once 611/s before the burst
   * against 477/s after it and 486/s alone, had judged the burst against the fast moment alone).
   */
  goodput: number;
  /** The same against each measure: before the burst (which set its rate), after it, alone. */
  goodputOfBefore: number;
  goodputOfAfter: number;
  goodputOfAlone: number;
  /** From the end of the burst until every request due since succeeded (null: never within the run). */
  recoveryMs: number | null;
  sessionsOpenedDuringBurst: number;
  sessionsOpenedAfter: number;
  cpu: OverloadRun['cpu'];
  /** The busy school's writes in each second of the burst: served, refused 429, refused 503. */
  burstSeconds: { ok: number; tooMany: number; unavailable: number }[];
  activity: OverloadRun['activity'];
};

export function summarise(run: OverloadRun): OverloadSummary {
  const seconds: Record<Phase, number> = {
    before: run.phases.beforeMs / 1000,
    burst: run.phases.burstMs / 1000,
    after: run.phases.afterMs / 1000,
  };
  const by = (school: Tagged['school'], kind: Tagged['kind']) =>
    Object.fromEntries(
      (['before', 'burst', 'after'] as Phase[]).map((phase) => [
        phase,
        slice(
          run.outcomes.filter((o) => o.school === school && o.kind === kind && o.phase === phase),
          seconds[phase],
        ),
      ]),
    ) as Record<Phase, Slice>;
  const refused = run.outcomes.filter((o) => o.school === 'busy' && o.phase === 'burst' && !ok(o));
  const statuses: Record<string, number> = {};
  for (const o of refused)
    statuses[`${o.status} ${o.code ?? ''}`.trim()] =
      (statuses[`${o.status} ${o.code ?? ''}`.trim()] ?? 0) + 1;
  const improper: Record<string, number> = {};
  for (const o of run.outcomes) {
    if (ok(o) || shed(o)) continue;
    const key =
      o.status === 0
        ? `no answer (${o.error ?? '?'})`
        : `${o.status} ${o.code ?? '(no code)'}${o.enveloped ? '' : ' (not enveloped)'}`;
    improper[key] = (improper[key] ?? 0) + 1;
  }
  const busyWrites = by('busy', 'write');
  const drained = run.outcomes.filter(
    (o) => o.school === 'busy' && o.kind === 'write' && o.dueAt >= run.burstEnd + DRAIN_MS,
  );
  // The last failure of any school after the burst: every request due after it succeeded.
  const lastFailure = run.outcomes
    .filter((o) => o.dueAt >= run.burstEnd && !ok(o))
    .reduce((latest, o) => Math.max(latest, o.dueAt), run.burstEnd);
  const anyAfter = run.outcomes.some((o) => o.dueAt > lastFailure);
  return {
    capacity: run.capacity,
    capacityAlone: run.capacityAlone,
    capacityAfter: run.capacityAfter,
    burstRate: run.burstRate,
    busyWrites,
    busyWritesOnceDrained: slice(drained, seconds.after - DRAIN_MS / 1000),
    otherReads: by('other', 'read'),
    otherWrites: by('other', 'write'),
    refusals: {
      count: refused.length,
      proper: refused.filter(shed).length,
      p50: Math.round(
        quantile(
          refused.map((o) => o.ms),
          0.5,
        ),
      ),
      p99: Math.round(
        quantile(
          refused.map((o) => o.ms),
          0.99,
        ),
      ),
      max: Math.round(Math.max(0, ...refused.map((o) => o.ms))),
      statuses,
    },
    improper,
    retried: run.outcomes.filter((o) => o.retried).length,
    goodput: busyWrites.burst.perSecond / ((run.capacity + run.capacityAfter) / 2),
    goodputOfBefore: busyWrites.burst.perSecond / run.capacity,
    goodputOfAfter: busyWrites.burst.perSecond / run.capacityAfter,
    goodputOfAlone: busyWrites.burst.perSecond / run.capacityAlone,
    recoveryMs: anyAfter ? Math.round(lastFailure - run.burstEnd) : null,
    sessionsOpenedDuringBurst: run.sessionsOpenedDuringBurst,
    sessionsOpenedAfter: run.sessionsOpenedAfter,
    cpu: run.cpu,
    burstSeconds: perSecondOfBurst(run),
    activity: run.activity,
  };
}

/** Whether goodput fell evenly or collapsed for a while: what one low figure cannot tell. */
function perSecondOfBurst(run: OverloadRun): OverloadSummary['burstSeconds'] {
  const seconds = Array.from({ length: Math.ceil(run.phases.burstMs / 1000) }, () => ({
    ok: 0,
    tooMany: 0,
    unavailable: 0,
  }));
  for (const o of run.outcomes) {
    if (o.school !== 'busy' || o.kind !== 'write' || o.phase !== 'burst') continue;
    const second = seconds[Math.floor((o.dueAt - run.burstStart) / 1000)];
    if (!second) continue;
    if (ok(o)) second.ok++;
    else if (o.status === 429) second.tooMany++;
    else if (o.status === 503) second.unavailable++;
  }
  return seconds;
}

const pct = (share: number) => `${(share * 100).toFixed(share === 1 ? 0 : 1)} %`;
const failures = (s: Slice) =>
  Object.entries(s.failures)
    .map(([key, n]) => `${n} × ${key}`)
    .join(', ');

/** The issue's table, from one run. */
export function markdownTable(title: string, s: OverloadSummary): string {
  const row = (name: string, cells: string[]) => `| ${name} | ${cells.join(' | ')} |`;
  const phases: Phase[] = ['before', 'burst', 'after'];
  const busy = (p: Phase) => {
    const w = s.busyWrites[p];
    const extra =
      p === 'burst'
        ? `; ${s.refusals.count} refused (p50 ${s.refusals.p50} ms, p99 ${s.refusals.p99} ms)`
        : '';
    return `${w.perSecond.toFixed(0)}/s (${(w.perSecond / s.capacity).toFixed(2)}× capacity)${extra}`;
  };
  const other = (slices: Record<Phase, Slice>) => (p: Phase) => {
    const x = slices[p];
    const failed = failures(x);
    return `${pct(x.okShare)} of ${x.count}, p99 ${x.p99} ms${failed ? ` (${failed})` : ''}`;
  };
  return [
    `### ${title}`,
    '',
    `Capacity of the busy school's writes, with 8 admins waiting for their answers: ${s.capacity.toFixed(0)}/s under the other schools' usual load before the burst (the service using ${s.cpu.capacity.service.toFixed(2)} cores; "capacity" below), ${s.capacityAlone.toFixed(0)}/s alone, first, and ${s.capacityAfter.toFixed(0)}/s under the usual load again once the phase after the burst had ended; burst arrivals ${s.burstRate}/s (3× the capacity).`,
    '',
    '| | before the burst | during the burst | after it ended |',
    '|---|---|---|---|',
    row("the busy school's successful writes", phases.map(busy)),
    row("the other schools' list reads", phases.map(other(s.otherReads))),
    row("the other schools' writes", phases.map(other(s.otherWrites))),
    row('database sessions opened', [
      '—',
      String(s.sessionsOpenedDuringBurst),
      String(s.sessionsOpenedAfter),
    ]),
    row(
      'CPU of the service / of the load, in cores',
      phases.map((p) => `${s.cpu[p].service.toFixed(2)} / ${s.cpu[p].load.toFixed(2)}`),
    ),
    '',
    `Refusals during the burst: ${
      Object.entries(s.refusals.statuses)
        .map(([k, n]) => `${n} × ${k}`)
        .join(', ') || 'none'
    }; ${s.refusals.proper} of ${s.refusals.count} enveloped with Retry-After, slowest ${s.refusals.max} ms.`,
    `Answers neither a success nor a proper refusal: ${
      Object.entries(s.improper)
        .map(([k, n]) => `${n} × ${k}`)
        .join(', ') || 'none'
    }; reads sent again after their reused keep-alive socket was reset unanswered: ${s.retried}.`,
    `The busy school's writes in each second of the burst, served/429/503: ${s.burstSeconds
      .map((b) => `${b.ok}/${b.tooMany}/${b.unavailable}`)
      .join(' ')}.`,
    `The service's database sessions, sampled each second from the burst on: ${s.activity
      .map(
        (a) =>
          `${(a.t / 1000).toFixed(0)} s: ${Object.entries(a.states)
            .map(([state, n]) => `${n} ${state}`)
            .join(', ')}`,
      )
      .join('; ')}.`,
    `Goodput ${s.goodput.toFixed(2)}× the capacity under load, before and after the burst (${s.goodputOfBefore.toFixed(2)}× the one before, ${s.goodputOfAfter.toFixed(2)}× the one after, ${s.goodputOfAlone.toFixed(2)}× the capacity alone); every request succeeded again ${s.recoveryMs === null ? 'never, within the run' : `${s.recoveryMs} ms after the burst`}.`,
    '',
  ].join('\n');
}
