// npm run bench:overload: one school's burst against four schools at their usual pace, on
// PostgreSQL with the default settings, in one process and with WEB_CONCURRENCY=2. Writes
// bench/results/overload.md and overload.json. (The same run is judged by
// server/test/reliability/overload.test.ts.)
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import postgres from 'postgres';
import {
  markdownTable,
  type OverloadSummary,
  summarise,
} from '../server/test/reliability/overload/analysis.js';
import { treeCpuSeconds } from '../server/test/reliability/overload/process-cpu.js';
import { runOverload } from '../server/test/reliability/overload/scenario.js';
import { ROOT, startServer } from './processes.js';

const env = process.env;
const adminUrl =
  env.BENCH_DATABASE_URL ?? env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const processes = (env.BENCH_OVERLOAD_PROCESSES ?? '1,2').split(',').map(Number);
const main = env.BENCH_SERVICE_MAIN ?? 'server/dist/main.js';
const SECRET = randomBytes(32).toString('hex');
const SUPER = 'overload-super-admin';

async function one(webConcurrency: number): Promise<OverloadSummary> {
  const name = `tms_overload_${process.pid}_${webConcurrency}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const sql = postgres(url.toString(), { max: 2, onnotice: () => {} });
  // BENCH_NODE_ARGS: options for the service's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = await startServer('service', [...nodeArgs, main], {
    DATABASE_URL: url.toString(),
    AUTH_JWT_SECRET: SECRET,
    SUPER_ADMIN_SUBJECTS: SUPER,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    WEB_CONCURRENCY: String(webConcurrency),
  });
  try {
    const run = await runOverload({
      baseUrl: server.url,
      secret: SECRET,
      superAdmin: SUPER,
      sql,
      database: name,
      serviceCpu: () => treeCpuSeconds(server.pid),
    });
    const summary = summarise(run);
    console.warn(
      markdownTable(`${webConcurrency === 1 ? 'One process' : `WEB_CONCURRENCY=${webConcurrency}`}`, summary),
    );
    console.warn(JSON.stringify(run.activity.slice(0, 40)));
    return summary;
  } finally {
    await server.stop();
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end({ timeout: 5 });
  }
}

const results: { webConcurrency: number; summary: OverloadSummary }[] = [];
for (const n of processes) results.push({ webConcurrency: n, summary: await one(n) });
const commit = (() => {
  try {
    return String(execSync('git rev-parse --short HEAD', { cwd: ROOT })).trim();
  } catch {
    return 'unknown';
  }
})();
if (!env.BENCH_OVERLOAD_NO_WRITE) {
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(
    `${ROOT}bench/results/overload.json`,
    `${JSON.stringify({ commit, cores: cpus().length, results }, null, 2)}\n`,
  );
  writeFileSync(
    `${ROOT}bench/results/overload.md`,
    [
      '# One school bursts, four keep their pace',
      '',
      `\`npm run bench:overload\`, commit ${commit}, PostgreSQL, default settings (pool of 10, 4 s deadline, default rate limits), ${cpus().length} cores shared by the service, PostgreSQL and the load.`,
      '',
      ...results.map((r) =>
        markdownTable(
          r.webConcurrency === 1 ? 'One process' : `WEB_CONCURRENCY=${r.webConcurrency}`,
          r.summary,
        ),
      ),
    ].join('\n'),
  );
}
