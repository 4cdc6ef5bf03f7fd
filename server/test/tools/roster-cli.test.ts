import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROSTER_EXPORT_COLUMNS, ROSTER_ROWS_IN_REQUEST_MAX } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, createTenantFixture, type TenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

// `npm run roster` as an administrator runs it: the built command, in a process of its own, against
// a running service. The import's rules are tested over HTTP elsewhere; this holds the command to
// its promises: the summary, the table of errors, the exit codes, the polling, the export.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ROSTER = join(ROOT, 'server/dist/cli/roster.js');
const SAMPLE = join(ROOT, 'docs/examples/roster.csv');
const SCRIPTS = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

let h: TestServer;
let workdir: string;
beforeAll(async () => {
  if (!existsSync(ROSTER)) throw new Error(`${ROSTER} is missing: build the server first`);
  h = await startTestServer();
  workdir = mkdtempSync(join(tmpdir(), 'tms-roster-'));
});
afterAll(async () => {
  await h?.close();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

type Run = { code: number; stdout: string; stderr: string };

/** The command with the service's URL and a token in its environment, as the docs set them. */
function roster(args: string[], token: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ROSTER, ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', TMS_URL: h.baseUrl, TMS_TOKEN: token },
        encoding: 'utf8',
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const csvFile = (name: string, lines: string[]) => {
  const path = join(workdir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

async function memberCount(tenant: TenantFixture): Promise<number> {
  const res = await tenant.owner.api.memberships.list({
    params: { tenantId: tenant.tenantId },
    query: { limit: 1, includeTotal: true },
  });
  if (res.status !== 200) throw new Error(`list: ${res.status}`);
  return res.body.meta.total ?? -1;
}

/** The table's lines: its header (`row column code message`) and the lines under it. */
function tableOf(stdout: string, title: string) {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`${title} (`));
  const header = lines[start + 1] ?? '';
  const body: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('  ')) break;
    body.push(line);
  }
  return { title: lines[start], header, body };
}

describe('npm run roster', () => {
  it('runs the built server/dist/cli/roster.js', () => {
    expect(SCRIPTS.roster).toMatch(/^turbo run build\b.* >&2 && node server\/dist\/cli\/roster\.js$/);
  });

  it('imports the sample file, then finds nothing to change in it the second time', async () => {
    const tenant = await createTenantFixture(h);
    const first = await roster(['import', '--tenant', tenant.tenantId, SAMPLE], tenant.owner.token);
    expect(first.stderr).toMatch(/^uploaded /m);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(/^Applied \([\d,]+ rows, mode add\):$/m);
    const added = Number(/^ +(\d+) {2}added/m.exec(first.stdout)?.[1]);
    expect(added).toBeGreaterThan(0);
    expect(await memberCount(tenant)).toBe(1 + added);

    const again = await roster(['import', '--tenant', tenant.tenantId, SAMPLE], tenant.owner.token);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^ +0 {2}added/m);
    expect(again.stdout).toMatch(new RegExp(`^ +${added} {2}unchanged`, 'm'));
  });

  it('a dry run with errors prints them as an aligned table, cut at 50 lines, changes nothing, exits 1', async () => {
    const tenant = await createTenantFixture(h);
    const bad = Array.from({ length: 53 }, (_, i) =>
      i % 2 === 0 ? `not-an-email-${i},STUDENT,x` : `bad-role-${i}@example.test,PRINCIPAL,x`,
    );
    const file = csvFile('errors.csv', ['email,role,grade', 'fine@example.test,TEACHER,5', ...bad]);
    const run = await roster(['import', '--tenant', tenant.tenantId, file, '--dry-run'], tenant.owner.token);

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^Dry run \(54 rows, mode add\): nothing changed\. Applying would be refused: ROSTER_INVALID/m,
    );
    expect(run.stdout).toMatch(/^ +53 {2}invalid rows$/m);
    const errors = tableOf(run.stdout, 'Errors');
    expect(errors.title).toBe('Errors (53):');
    expect(errors.header).toMatch(/^ {2}row +column +code +message$/);
    expect(errors.body).toHaveLength(51);
    expect(errors.body.at(-1)).toBe('  … and 3 more');
    const at = (name: string) => errors.header.indexOf(name);
    const [rowAt, columnAt, codeAt, messageAt] = [at('row'), at('column'), at('code'), at('message')];
    expect(errors.body[0]?.slice(rowAt, columnAt).trim()).toBe('3');
    expect(errors.body[0]?.slice(columnAt, codeAt).trim()).toBe('email');
    for (const line of errors.body.slice(0, 50)) {
      expect(line.slice(codeAt, messageAt).trim()).toMatch(/^INVALID_(EMAIL|ROLE)$/);
      expect(line.slice(messageAt - 2)).toMatch(/^ {2}\S/);
    }
    const warnings = tableOf(run.stdout, 'Warnings');
    expect(warnings.body).toEqual([expect.stringMatching(/^ {2}1 +grade +UNKNOWN_COLUMN +\S/)]);
    expect(await memberCount(tenant)).toBe(1);
  });

  it('an apply with an invalid row is refused with the rows in a table, and exits 1', async () => {
    const tenant = await createTenantFixture(h);
    const file = csvFile('refused.csv', ['email;role', 'ok@example.test;STUDENT', 'nobody;STUDENT']);
    const run = await roster(['import', '--tenant', tenant.tenantId, file], tenant.owner.token);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^Not applied, nothing changed: ROSTER_INVALID \(HTTP 409\): /m);
    expect(tableOf(run.stdout, 'Errors').body).toEqual([
      expect.stringMatching(/^ {2}3 +email +INVALID_EMAIL +\S/),
    ]);
    expect(await memberCount(tenant)).toBe(1);
  });

  it('a sync over the removal limit is refused, and exits 1', async () => {
    const tenant = await createTenantFixture(h);
    const file = csvFile('two.csv', ['email', 'a@example.test', 'b@example.test']);
    expect((await roster(['import', '--tenant', tenant.tenantId, file], tenant.owner.token)).code).toBe(0);
    const empty = csvFile('none.csv', ['email', tenant.owner.email]);
    const args = ['import', '--tenant', tenant.tenantId, empty, '--mode', 'sync'];
    const run = await roster([...args, '--max-removal-percent', '50'], tenant.owner.token);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^Not applied, nothing changed: ROSTER_REMOVAL_LIMIT \(HTTP 409\): /m);
    expect(await memberCount(tenant)).toBe(3);
    const allowed = await roster([...args, '--max-removal-percent', '100'], tenant.owner.token);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^ +2 {2}removed$/m);
  });

  it('follows a large file (202) to its end, with plain progress lines when stderr is no terminal', async () => {
    const tenant = await createTenantFixture(h);
    const rows = Array.from(
      { length: ROSTER_ROWS_IN_REQUEST_MAX + 200 },
      (_, i) => `big-${i}@example.test,student`,
    );
    const file = csvFile('large.csv', ['Email,Role', ...rows]);
    const run = await roster(['import', '--tenant', tenant.tenantId, file], tenant.owner.token);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^QUEUED: 0 of 1,200 rows read$/m);
    expect(run.stderr).toMatch(/^SUCCEEDED: 1,200 of 1,200 rows read$/m);
    // No bar: carriage returns and escape sequences would garble a log.
    expect(run.stderr).not.toContain('\r');
    expect(run.stderr).not.toContain('\u001b[');
    expect(run.stdout).toMatch(/^Applied \(1,200 rows, mode add\):\n +1,200 {2}added/m);
    expect(await memberCount(tenant)).toBe(1201);
  });

  it('exports to a file (CSV) and to stdout (NDJSON)', async () => {
    const tenant = await createTenantFixture(h);
    const file = csvFile('export-me.csv', [
      'email,role,givenName',
      'ada@example.test,TEACHER,"=HYPERLINK(""x"")"',
    ]);
    expect((await roster(['import', '--tenant', tenant.tenantId, file], tenant.owner.token)).code).toBe(0);

    const out = join(workdir, 'members.csv');
    const toFile = await roster(['export', '--tenant', tenant.tenantId, '--out', out], tenant.owner.token);
    expect(toFile).toMatchObject({ code: 0, stdout: '' });
    expect(toFile.stderr).toMatch(new RegExp(`^exported 2 memberships \\(.+\\) to ${out}$`, 'm'));
    expect(existsSync(`${out}.part`)).toBe(false);
    const lines = readFileSync(out, 'utf8')
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split(/\r?\n/);
    expect(lines[0]).toBe(ROSTER_EXPORT_COLUMNS.join(','));
    expect(lines).toHaveLength(3);
    expect(lines.find((line) => line.startsWith('ada@'))).toContain(`'=HYPERLINK`);

    const toStdout = await roster(
      ['export', '--tenant', tenant.tenantId, '--format', 'ndjson', '--role', 'teacher'],
      tenant.owner.token,
    );
    expect(toStdout.code).toBe(0);
    const records = toStdout.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toEqual([expect.objectContaining({ email: 'ada@example.test', role: 'TEACHER' })]);
  });

  it("answers the service's refusal with exit code 1", async () => {
    const tenant = await createTenantFixture(h);
    const stranger = await createActor(h);
    const run = await roster(['export', '--tenant', tenant.tenantId], stranger.token);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^Not exported: TENANT_ACCESS_DENIED \(HTTP 403\): /m);
  });

  it.each([
    [[]],
    [['import', '--tenant', 'T']],
    [['import', 'file.csv']],
    [['import', '--tenant', 'T', 'file.csv', '--mode', 'replace']],
    [['import', '--tenant', 'T', 'file.csv', '--max-removal-percent', '150']],
    [['import', '--tenant', 'T', 'missing.csv']],
    [['export', '--tenant', 'T', '--dry-run']],
    [['export', '--tenant', 'T', '--format', 'xlsx']],
    [['import', '--tenant', 'T', 'file.csv', '--unknown']],
  ])('%j is a usage error: exit code 2, with the usage', async (args) => {
    const run = await roster(args, 'a-token');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage:');
    expect(run.stdout).toBe('');
  });
});
