import type { LoadResult } from './load.js';
import type { RssSample } from './processes.js';
import type { ScenarioName } from './scenarios.js';

/** With, per request, the CPU microseconds of the server, of its PostgreSQL backends, of autocannon. */
export type SideResult = LoadResult & {
  rssStartMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  cpuUsPerRequest: { server: number; postgres: number | null; load: number };
};

export type ScenarioResult = {
  name: ScenarioName;
  title: string;
  service: SideResult;
  bare?: SideResult;
  /** Service / bare. */
  ratio?: { rps: number; p50: number; p99: number };
};

export type Memory = {
  scenario: ScenarioName;
  seconds: number;
  /** Medians of the first and of the last quarter of the run's samples. */
  startMb: number;
  endMb: number;
  maxMb: number;
  growth: number;
  samples: RssSample[];
};

export type Target = { name: string; value: number | null; limit: string; met: boolean | null };

export type Report = {
  meta: {
    date: string;
    commit: string;
    database: string;
    node: string;
    cpus: string;
    seed: { users: number; tenants: number; memberships: number; seedSeconds: number };
    duration: number;
    warmup: number;
    rounds: number;
    connections: number;
    bare: string;
    serviceEnv: Record<string, string>;
  };
  scenarios: ScenarioResult[];
  /** Service: how much a page past row 900,000 costs next to the first page (time per request). */
  deepVsFirst: { cost: number; p50: number } | null;
  memory: Memory | null;
  targets: Target[];
  notes: string[];
};

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN);
};

/**
 * RSS under steady load is a sawtooth (V8's old generation grows between major collections, 10 to
 * 20 s apart here): windows of a few seconds measure where in the tooth they fall, not growth. So
 * each end is the median over a quarter of the run (at least 5 s).
 */
export function memoryOf(scenario: ScenarioName, seconds: number, samples: RssSample[]): Memory {
  const last = samples.at(-1)?.t ?? 0;
  const window = Math.max(5, last / 4);
  const startMb = median(samples.filter((s) => s.t <= window).map((s) => s.mb));
  const endMb = median(samples.filter((s) => s.t >= last - window).map((s) => s.mb));
  const maxMb = Math.max(...samples.map((s) => s.mb));
  return { scenario, seconds, startMb, endMb, maxMb, growth: endMb / startMb - 1, samples };
}

/** The issue's targets; on PGlite they are printed but not judged (they are PostgreSQL targets). */
export function targetsOf(
  scenarios: ScenarioResult[],
  deepVsFirst: Report['deepVsFirst'],
  memory: Memory | null,
  judged: boolean,
): Target[] {
  const targets: Target[] = [];
  const add = (name: string, value: number | undefined | null, limit: string, ok: (v: number) => boolean) =>
    targets.push({
      name,
      value: value ?? null,
      limit,
      met: judged && value !== undefined && value !== null ? ok(value) : null,
    });
  for (const name of ['get-one', 'list-first'] as const) {
    const s = scenarios.find((x) => x.name === name);
    add(`${name}: service/bare req/s`, s?.ratio?.rps, '>= 0.75', (v) => v >= 0.75);
    add(`${name}: service/bare p99`, s?.ratio?.p99, '<= 2.0', (v) => v <= 2);
  }
  add('deep page / first page cost (service)', deepVsFirst?.cost, '<= 1.3', (v) => v <= 1.3);
  add(`RSS growth over ${memory?.seconds ?? 60} s (service)`, memory?.growth, '< 10 %', (v) => v < 0.1);
  return targets;
}

const fixed = (value: number | undefined, digits = 0) =>
  value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits);
const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
const mark = (met: boolean | null) => (met === null ? '(not judged)' : met ? 'met' : 'MISSED');

export function markdown(report: Report): string {
  const { meta } = report;
  const lines = [
    `# Benchmark: ${meta.database}`,
    '',
    `${meta.date}, commit ${meta.commit}; Node ${meta.node}; ${meta.cpus}.`,
    `Seed: ${meta.seed.memberships.toLocaleString('en')} memberships, ${meta.seed.tenants.toLocaleString('en')} tenants, ` +
      `${meta.seed.users.toLocaleString('en')} users, seeded in ${meta.seed.seedSeconds.toFixed(1)} s.`,
    `Each scenario: ${meta.warmup} s warm-up per side, then ${meta.duration} s per side with ${meta.connections} connections (autocannon, its own process), ` +
      `in ${meta.rounds} slices per side that alternate service, bare, bare, service, ... so that a drift of the machine's speed touches both alike. ` +
      `Bare: ${meta.bare}.`,
    '',
    '| Scenario | Service req/s | p50 ms | p99 ms | Bare req/s | p50 ms | p99 ms | req/s service/bare | p99 service/bare | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of report.scenarios) {
    const b = s.bare;
    lines.push(
      `| ${s.title} | ${fixed(s.service.rps)} | ${fixed(s.service.p50, 1)} | ${fixed(s.service.p99, 1)} | ${fixed(b?.rps)} | ${fixed(b?.p50, 1)} | ` +
        `${fixed(b?.p99, 1)} | ${fixed(s.ratio?.rps, 2)} | ${fixed(s.ratio?.p99, 2)} | ` +
        `${s.service.non2xx + s.service.errors}${b ? ` / ${b.non2xx + b.errors}` : ''} |`,
    );
  }
  lines.push(
    '',
    'CPU time per request, in microseconds: the server process, the PostgreSQL backends of the bench database, autocannon.',
    '',
    '| Scenario | Service: server | PostgreSQL | autocannon | Bare: server | PostgreSQL | autocannon |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  const cpu = (r: SideResult | undefined) =>
    r
      ? `${fixed(r.cpuUsPerRequest.server)} | ${fixed(r.cpuUsPerRequest.postgres ?? undefined)} | ${fixed(r.cpuUsPerRequest.load)}`
      : 'n/a | n/a | n/a';
  for (const s of report.scenarios) lines.push(`| ${s.title} | ${cpu(s.service)} | ${cpu(s.bare)} |`);
  lines.push('');
  if (report.deepVsFirst) {
    lines.push(
      `Deep page (past row 900,000) against the first page, service: ${report.deepVsFirst.cost.toFixed(2)}x the time ` +
        `per request (first req/s / deep req/s), p50 ${report.deepVsFirst.p50.toFixed(2)}x.`,
      '',
    );
  }
  if (report.memory) {
    const m = report.memory;
    lines.push(
      `Memory, service, ${m.scenario} for ${m.seconds} s: RSS ${m.startMb.toFixed(0)} MB at the start, ` +
        `${m.endMb.toFixed(0)} MB at the end (${pct(m.growth)}), at most ${m.maxMb.toFixed(0)} MB.`,
      '',
    );
  }
  lines.push('| Target | Value | Limit | |', '|---|---:|---:|---|');
  for (const t of report.targets) {
    const value = t.value === null ? 'n/a' : t.name.startsWith('RSS') ? pct(t.value) : t.value.toFixed(2);
    lines.push(`| ${t.name} | ${value} | ${t.limit} | ${mark(t.met)} |`);
  }
  if (report.notes.length > 0) lines.push('', ...report.notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Two panels of grouped horizontal bars: req/s and p99, service against bare. */
export function svg(report: Report): string {
  const width = 820;
  const labelWidth = 230;
  const barArea = width - labelWidth - 160;
  const colours = { service: '#2f6fdf', bare: '#a0a7b4' };
  const parts: string[] = [];
  let y = 78;
  const panel = (title: string, pick: (r: SideResult) => number, unit: string) => {
    parts.push(`<text x="20" y="${y}" class="h">${xml(title)}</text>`);
    y += 14;
    const max = Math.max(1, ...report.scenarios.flatMap((s) => [pick(s.service), s.bare ? pick(s.bare) : 0]));
    for (const s of report.scenarios) {
      parts.push(
        `<text x="${labelWidth - 10}" y="${y + 19}" class="l" text-anchor="end">${xml(s.title)}</text>`,
      );
      for (const [side, result] of [
        ['service', s.service],
        ['bare', s.bare],
      ] as const) {
        if (result) {
          const value = pick(result);
          const w = Math.max(1, (value / max) * barArea);
          const ratio = side === 'service' && s.bare ? ` (${(value / pick(s.bare)).toFixed(2)}x bare)` : '';
          parts.push(
            `<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="13" fill="${colours[side]}"/>`,
            `<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 11}" class="v">${value.toFixed(0)} ${unit}${ratio}</text>`,
          );
        }
        y += 15;
      }
      y += 10;
    }
    y += 22;
  };
  panel('Requests per second (higher is better)', (r) => r.rps, 'req/s');
  panel('p99 latency (lower is better)', (r) => r.p99, 'ms');
  const header = [
    `<text x="20" y="24" class="t">${xml(`Service vs bare node:http + postgres.js — ${report.meta.database}`)}</text>`,
    `<rect x="20" y="34" width="12" height="12" fill="${colours.service}"/><text x="38" y="44" class="l">service</text>`,
    `<rect x="110" y="34" width="12" height="12" fill="${colours.bare}"/><text x="128" y="44" class="l">bare handler, same SQL</text>`,
    `<text x="${width - 20}" y="44" class="l" text-anchor="end">${xml(`${report.meta.date.slice(0, 10)}, ${report.meta.connections} connections, ${report.meta.duration} s each`)}</text>`,
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="system-ui, sans-serif">`,
    `<title>${xml(`Requests per second and p99 latency per scenario, service against a bare handler (${report.meta.database})`)}</title>`,
    '<style>.t{font-size:15px;font-weight:600}.h{font-size:13px;font-weight:600}.l{font-size:12px}.v{font-size:11px;fill:#333}</style>',
    `<rect width="${width}" height="${y}" fill="#fff"/>`,
    ...header,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
