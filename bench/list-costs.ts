/**
 * `npm run bench:lists`: what a member list costs on a tenant of 1,000,000 memberships (PostgreSQL,
 * BENCH_DATABASE_URL or TEST_DATABASE_URL), per order and with `includeTotal`, from the server's
 * own EXPLAIN ANALYZE of the service's SQL. Prints a markdown table; docs/api.md quotes the result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchDatabase } from './database.js';
import { seed } from './seed.js';

const env = process.env;
const adminUrl = env.BENCH_DATABASE_URL ?? env.TEST_DATABASE_URL;
if (!adminUrl) throw new Error('set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server');
const MEMBERSHIPS = Number(env.BENCH_MEMBERSHIPS ?? 1_000_000);

const print = (line: string) => process.stdout.write(`${line}\n`);

const tmp = mkdtempSync(join(tmpdir(), 'tms-list-costs-'));
const database = await createBenchDatabase(adminUrl, tmp);
const sql = await database.open();
try {
  const seeded = await seed(sql, { memberships: MEMBERSHIPS, tenants: 10, pool: 10 }, 'postgres');
  await sql.query('vacuum analyze');
  const t = seeded.tenantId;
  const page = `select m.id from tenant_memberships m join users u on u.id = m.user_id where m.tenant_id = '${t}'`;
  const cases: [string, string][] = [
    ['first page, createdAt', `${page} order by m.id limit 21`],
    ['first page, -createdAt', `${page} order by m.id desc limit 21`],
    ['first page, email', `${page} order by u.email_canonical collate "C" nulls last, m.id limit 21`],
    [
      'first page, displayName',
      `${page} order by lower(coalesce(u.display_name, m.invited_display_name)) nulls last, m.id limit 21`,
    ],
    ['total, no filter', `select count(*) from tenant_memberships m where m.tenant_id = '${t}'`],
    [
      'total, role=TEACHER',
      `select count(*) from tenant_memberships m where m.tenant_id = '${t}' and m.role = 'TEACHER'`,
    ],
    [
      "total, q='user 12345'",
      `select count(*) from tenant_memberships m where m.tenant_id = '${t}' and m.search ilike '%user 12345%'`,
    ],
  ];
  print(`| query (tenant of ${MEMBERSHIPS.toLocaleString('en')} memberships) | time | plan |`);
  print('|---|---:|---|');
  for (const [label, query] of cases) {
    await sql.query(query); // warm the cache: a member table is read again and again
    const plan = await sql.query<{ 'QUERY PLAN': string }>(`explain (analyze, format text) ${query}`);
    const lines = plan.map((row) => row['QUERY PLAN']);
    const time =
      lines.find((line) => line.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?';
    const nodes = lines
      .filter((line) => /(Scan|Sort|Aggregate|Join|Limit)/.test(line))
      .map((line) =>
        line
          .trim()
          .replace(/^->\s*/, '')
          .replace(/\s+\(cost.*$/, ''),
      )
      .slice(0, 3)
      .join('; ');
    print(`| ${label} | ${time} | ${nodes} |`);
  }
} finally {
  await sql.close();
  await database.drop();
  rmSync(tmp, { recursive: true, force: true });
}
