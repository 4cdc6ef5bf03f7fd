/**
 * Roster imports and the export, measured on PostgreSQL: `npm run bench` runs this after its other
 * runs, against its service and its 1,000,000-membership tenant; `npm run bench:rosters` runs it
 * alone, seeding a database of its own. Writes bench/results/rosters.{json,md}. See bench/README.md.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SignJWT } from 'jose';
import postgres from 'postgres';
import { type BenchDatabase, createBenchDatabase } from './database.js';
import { ROOT, type Server, startServer } from './processes.js';
import { measureExport } from './roster-export.js';
import {
  bareCopySeconds,
  emptyTenant,
  type ImportTiming,
  rosterFile,
  timeImport,
} from './roster-import-runs.js';
import { seed } from './seed.js';

const env = process.env;
const say = (line: string) => console.warn(line);
const SIZES = (env.BENCH_ROSTER_SIZES ?? '10000,50000').split(',').map(Number);
/** COPY runs per file: the median is the floor (the first pays for cold caches). */
const COPY_RUNS = 3;
/** The issue's goal: applying 10,000 rows within 10 times the bare COPY's time. */
const GOAL = { rows: 10_000, ratio: 10 };

export type RosterBenchInput = {
  db: BenchDatabase;
  service: Server;
  secret: string;
  /** The user who owns the import tenants (and the export's tenant). */
  ownerSubject: string;
  exportTenantId: string;
  exportMemberships: number;
};

type Timed = {
  seconds: number;
  rowsPerSecond: number;
  timesCopy: number;
  /** The POST's status (202: polled to the end) and how long it took to answer. */
  answered: number;
  answeredSeconds: number;
};
type ImportScenario = { rows: number; copySeconds: number; copyRuns: number[]; dryRun: Timed; apply: Timed };
type ExportScenario = Awaited<ReturnType<typeof measureExport>> & { format: 'csv' | 'ndjson' };
export type RosterReport = {
  meta: { date: string; commit: string; database: string; node: string; cpus: string; exportTenant: number };
  imports: ImportScenario[];
  exports: ExportScenario[];
  goal: { rows: number; ratio: number; measured: number | null; met: boolean | null };
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** BENCH_ROSTERS=0 skips it; on PGlite it cannot run (the service holds the one connection the COPY needs). */
export async function runRosterBench(input: RosterBenchInput): Promise<RosterReport | undefined> {
  if (env.BENCH_ROSTERS === '0') return undefined;
  if (input.db.kind !== 'postgres') {
    say('rosters: skipped, they need PostgreSQL (BENCH_DATABASE_URL)');
    return undefined;
  }
  const report = await measureRosters(input);
  const base = env.BENCH_ROSTER_OUT ?? join(ROOT, 'bench/results/rosters');
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${base}.md`, rosterMarkdown(report));
  say(`rosters: written ${base}.{json,md}`);
  return report;
}

async function measureRosters(input: RosterBenchInput): Promise<RosterReport> {
  const { db, service } = input;
  const sql = postgres(db.serviceEnv.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
  try {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(input.ownerSubject)
      .setIssuedAt()
      .setExpirationTime('4h')
      .sign(new TextEncoder().encode(input.secret));
    const imports: ImportScenario[] = [];
    for (const rows of SIZES) {
      const tag = `${rows}-${Date.now().toString(36)}`;
      const file = rosterFile(rows, tag);
      const tenantId = await emptyTenant(sql, input.ownerSubject, tag);
      const copyRuns: number[] = [];
      for (let run = 0; run < COPY_RUNS; run++) copyRuns.push(await bareCopySeconds(sql, file, tenantId));
      const copySeconds = median(copyRuns);
      const timed = (t: ImportTiming): Timed => ({
        seconds: t.seconds,
        rowsPerSecond: rows / t.seconds,
        timesCopy: t.seconds / copySeconds,
        answered: t.answered,
        answeredSeconds: t.answeredSeconds,
      });
      const dryRun = timed(await timeImport(service.url, token, tenantId, file, true));
      const apply = timed(await timeImport(service.url, token, tenantId, file, false));
      imports.push({ rows, copySeconds, copyRuns, dryRun, apply });
      say(
        `rosters: ${rows} rows: COPY ${copySeconds.toFixed(2)} s; dry run ${dryRun.seconds.toFixed(2)} s ` +
          `(${dryRun.timesCopy.toFixed(1)}x); apply ${apply.seconds.toFixed(2)} s (${apply.timesCopy.toFixed(1)}x)`,
      );
    }
    const exports: ExportScenario[] = [];
    for (const format of ['csv', 'ndjson'] as const) {
      const measured = await measureExport({
        url: service.url,
        token,
        tenantId: input.exportTenantId,
        pid: service.pid,
        format,
      });
      exports.push({ format, ...measured });
      say(
        `rosters: export ${format}: ${measured.rows} rows in ${measured.seconds.toFixed(1)} s, ` +
          `RSS ${measured.rssBeforeMb.toFixed(0)} -> peak ${measured.rssPeakMb.toFixed(0)} MB`,
      );
    }
    const goalRun = imports.find((s) => s.rows === GOAL.rows);
    const measuredRatio = goalRun ? goalRun.apply.timesCopy : null;
    return {
      meta: {
        date: new Date().toISOString(),
        commit: commitOf(),
        database: String((await sql`select version() as v`)[0]?.v ?? '').replace(/ on .*/, ''),
        node: process.version,
        cpus: `${cpus().length} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
        exportTenant: input.exportMemberships,
      },
      imports,
      exports,
      goal: {
        ...GOAL,
        measured: measuredRatio,
        met: measuredRatio === null ? null : measuredRatio <= GOAL.ratio,
      },
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

function commitOf(): string {
  const git = (args: string) => execSync(`git ${args}`, { cwd: ROOT }).toString().trim();
  const dirty = git('status --porcelain -- server/src contract/src server/drizzle');
  return `${git('rev-parse --short HEAD')}${dirty ? ' (with uncommitted changes)' : ''}`;
}

const n = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function rosterMarkdown(r: RosterReport): string {
  const importRow = (s: ImportScenario, kind: 'dry run' | 'apply') => {
    const t = kind === 'dry run' ? s.dryRun : s.apply;
    return `| ${kind}, ${n(s.rows)} rows | ${t.answered} after ${n(t.answeredSeconds, 2)} s | ${n(t.seconds, 2)} | ${n(t.rowsPerSecond)} | ${n(s.copySeconds, 3)} | **${n(t.timesCopy, 1)}** |`;
  };
  const goal =
    r.goal.measured === null
      ? `not measured (no ${n(r.goal.rows)}-row scenario)`
      : `${r.goal.met ? 'met' : 'NOT met'}: applying ${n(r.goal.rows)} rows took ${n(r.goal.measured, 1)}x the bare COPY (goal: at most ${r.goal.ratio}x)`;
  return `# Roster imports and the export

${r.meta.date}, commit ${r.meta.commit}; ${r.meta.database}; node ${r.meta.node}; ${r.meta.cpus}, shared by
PostgreSQL, the service and the bench.

## Imports

New addresses (90 % students, 10 % teachers, with names) into an empty tenant, \`mode=add\`: a dry run,
then the same file applied. Timed from the POST to the answer, or, for a \`202\`, to the poll (every
50 ms) that saw it finished. The floor: a bare \`COPY\` of the same rows into \`users\` and
\`tenant_memberships\` (indexes, constraints and triggers in place; no rule checked, no audit event), in a
transaction rolled back, the median of ${COPY_RUNS} runs.

| scenario | POST answered | seconds | rows/s | bare COPY s | × COPY |
|---|---:|---:|---:|---:|---:|
${r.imports.flatMap((s) => [importRow(s, 'dry run'), importRow(s, 'apply')]).join('\n')}

Goal ${goal}.

## Export

Every membership of the bench's tenant of ${n(r.meta.exportTenant)}, streamed; the service's RSS sampled
during the download.

| format | rows | seconds | rows/s | RSS before, MB | RSS peak, MB |
|---|---:|---:|---:|---:|---:|
${r.exports.map((e) => `| ${e.format} | ${n(e.rows)} | ${n(e.seconds, 1)} | ${n(e.rowsPerSecond)} | ${n(e.rssBeforeMb)} | ${n(e.rssPeakMb)} |`).join('\n')}
`;
}

/** `npm run bench:rosters`: a database of its own, seeded with the bench's big tenant, and the service. */
async function main() {
  const adminUrl = env.BENCH_DATABASE_URL || env.DATABASE_URL;
  if (!adminUrl) throw new Error('npm run bench:rosters needs PostgreSQL: set BENCH_DATABASE_URL');
  const tmp = mkdtempSync(join(tmpdir(), 'tms-bench-rosters-'));
  const db = await createBenchDatabase(adminUrl, tmp);
  const service: { server?: Server } = {};
  const cleanUp = async () => {
    await service.server?.stop();
    await db.drop();
    rmSync(tmp, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
  try {
    const memberships = Number(env.BENCH_MEMBERSHIPS ?? 1_000_000);
    const sql = await db.open();
    say(`rosters: seeding a tenant of ${memberships} memberships`);
    const seeded = await seed(sql, { memberships, tenants: 0, pool: 0 }, 'postgres');
    await sql.close();
    const secret = randomBytes(48).toString('base64url');
    service.server = await startServer('service', [env.BENCH_SERVICE_MAIN ?? 'server/dist/main.js'], {
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn',
      RATE_LIMIT_MAX: '1000000000',
      AUTH_JWT_SECRET: secret,
      ...db.serviceEnv,
    });
    const report = await runRosterBench({
      db,
      service: service.server,
      secret,
      ownerSubject: seeded.ownerSubject,
      exportTenantId: seeded.tenantId,
      exportMemberships: memberships,
    });
    if (report) process.stdout.write(rosterMarkdown(report));
  } finally {
    await cleanUp();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
