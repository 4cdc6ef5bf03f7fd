import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { tenantMemberships, tenants } from '../../src/db/schema.js';
import { SYSTEM_AUDIT } from '../../src/modules/audit/audit-context.js';
import { createTenant } from '../../src/modules/tenants/tenants.service.js';
import { unique } from '../support/factories.js';
import { spawnServer } from '../support/spawn-server.js';
import { createBareDatabase, testDatabaseKind } from '../support/test-database.js';
import { until } from '../support/until.js';

const PURGE = fileURLToPath(new URL('../../dist/cli/purge.js', import.meta.url));
const SCRIPTS = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
  .scripts as Record<string, string>;

/** A database of its own that this process opens only between runs of the command (PGlite's lock). */
type Target = { env: Record<string, string>; open(): Promise<DatabaseHandle>; drop(): Promise<void> };

async function createTarget(workdir: string): Promise<Target> {
  if (testDatabaseKind() === 'pglite') {
    const dataDir = join(workdir, 'pglite');
    return {
      env: { PGLITE_DATA_DIR: dataDir },
      open: () => openDatabase({ kind: 'pglite', dataDir }),
      drop: async () => {},
    };
  }
  const bare = await createBareDatabase();
  return {
    env: { DATABASE_URL: bare.url },
    open: () => openDatabase({ kind: 'postgres', url: bare.url, poolSize: 2 }),
    drop: () => bare.drop(),
  };
}

/** Runs the built command as `npm run purge` does, and answers its exit code and output. */
async function runPurge(env: Record<string, string>, cwd: string) {
  if (!existsSync(PURGE)) throw new Error(`${PURGE} is missing: build the server first`);
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [PURGE], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let workdir: string;
let target: Target;
beforeAll(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-purge-'));
  target = await createTarget(workdir);
});
afterAll(async () => {
  await target?.drop();
  rmSync(workdir, { recursive: true, force: true });
});

/** Runs `work` on the target database, closed again afterwards (PGlite admits one process at a time). */
async function onDatabase<T>(work: (db: DatabaseHandle['db']) => Promise<T>): Promise<T> {
  const handle = await target.open();
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

/** Three tenants: deleted 40 days ago, deleted 2 days ago, and active. */
const seed = () =>
  onDatabase(async (db) => {
    const make = () =>
      createTenant(
        db,
        { audit: SYSTEM_AUDIT, retention: { days: 30 } },
        {
          name: 'Purgeable',
          slug: unique('purge'),
          owner: { email: `${unique('o')}@p.test` },
        },
      );
    const [old, recent, active] = [await make(), await make(), await make()];
    for (const [tenant, days] of [
      [old, 40],
      [recent, 2],
    ] as const) {
      await db
        .update(tenants)
        .set({ deletedAt: sql`now() - make_interval(days => ${days})` })
        .where(eq(tenants.id, tenant.id));
    }
    return { old, recent, active };
  });

const remaining = (ids: string[]) =>
  onDatabase(async (db) => ({
    tenants: (await db.select({ id: tenants.id }).from(tenants).where(inArray(tenants.id, ids)))
      .map((t) => t.id)
      .sort(),
    memberships: (
      await db
        .select({ tenantId: tenantMemberships.tenantId })
        .from(tenantMemberships)
        .where(inArray(tenantMemberships.tenantId, ids))
    )
      .map((m) => m.tenantId)
      .sort(),
  }));

describe(`npm run purge (${testDatabaseKind()})`, () => {
  it('builds the server, then runs server/dist/cli/purge.js', () => {
    expect(SCRIPTS.purge).toMatch(/^turbo run build\b.* >&2 && node server\/dist\/cli\/purge\.js$/);
  });

  it('removes the tenants past TENANT_RETENTION_DAYS with their memberships, prints each, and leaves the others', async () => {
    const { old, recent, active } = await seed();
    const ids = [old.id, recent.id, active.id];

    const first = await runPurge(target.env, workdir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^purged ${old.id} ${old.slug} \\(deleted \\S+Z\\)\n$`));
    expect(first.stderr).toMatch(
      /^1 tenant\(s\) purged: those deleted at or before \S+Z\n0 audit event\(s\) older than AUDIT_RETENTION_DAYS \(365\) purged\n$/,
    );
    expect(await remaining(ids)).toEqual({
      tenants: [recent.id, active.id],
      memberships: [recent.id, active.id],
    });

    const again = await runPurge(target.env, workdir);
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(again.stderr).toMatch(/^0 tenant\(s\) purged/);

    const shorter = await runPurge({ ...target.env, TENANT_RETENTION_DAYS: '1' }, workdir);
    expect(shorter.code, shorter.stderr).toBe(0);
    expect(shorter.stdout).toMatch(new RegExp(`^purged ${recent.id} ${recent.slug} `));
    expect(await remaining(ids)).toEqual({ tenants: [active.id], memberships: [active.id] });
  });

  it('refuses a bad TENANT_RETENTION_DAYS with one clear line, and purges nothing', async () => {
    const { old } = await seed();
    const refused = await runPurge({ ...target.env, TENANT_RETENTION_DAYS: '0' }, workdir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'TENANT_RETENTION_DAYS: Number must be greater than or equal to 1 (got "0")',
    );
    expect((await remaining([old.id])).tenants).toEqual([old.id]);
  });

  it('runs in the server too, as it starts (then every TENANT_PURGE_INTERVAL_MINUTES), and logs what it purged', async () => {
    const { old, recent, active } = await seed();
    const server = await spawnServer(target.env, workdir);
    try {
      await until('the purge log line', () => /purged \d+ deleted tenant/.test(server.output()), 20_000);
      expect(server.output()).toContain(old.id);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exit).toEqual({ code: 0, signal: null });
    }
    expect((await remaining([old.id, recent.id, active.id])).tenants).toEqual([recent.id, active.id]);
  });
});
