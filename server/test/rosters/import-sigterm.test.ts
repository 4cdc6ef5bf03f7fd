import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf } from '../support/json.js';
import { type Spawned, spawnServer } from '../support/spawn-server.js';
import { type BareDatabase, createBareDatabase, testDatabaseKind } from '../support/test-database.js';
import { csvOf, students } from './import-helpers.js';

/**
 * The built server as a process: SIGTERM while a large import runs in the background. The stop
 * waits for it (bounded), so the import is done, not cut off, when the server is started again.
 * Whether the signal lands before or during the import, the outcome asserted is the same. (On
 * PGlite the import runs on the server's one thread, which takes the signal only once it is done;
 * on PostgreSQL the signal lands while the database works.)
 */
let workdir: string;
let bare: BareDatabase | undefined;
beforeAll(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-roster-sigterm-'));
  if (testDatabaseKind() === 'postgres') bare = await createBareDatabase();
});
afterAll(async () => {
  rmSync(workdir, { recursive: true, force: true });
  await bare?.drop();
});

const tokenFrom = (output: string) => {
  const token = /\n {2}(eyJ[\w-]+\.[\w-]+\.[\w-]+)\n/.exec(output)?.[1];
  if (!token) throw new Error(`no token printed:\n${output}`);
  return token;
};

const ROWS = testDatabaseKind() === 'postgres' ? 20_000 : 5_000;

describe('SIGTERM during a background import', () => {
  it('waits for the import, which is SUCCEEDED, and applied, after a restart', async () => {
    const database: Record<string, string> = bare
      ? { DATABASE_URL: bare.url }
      : { PGLITE_DATA_DIR: join(workdir, 'data') };
    const env = { ...database, WEBHOOK_POLL_INTERVAL_MS: '0' };
    const first: Spawned = await spawnServer(env, workdir);
    const token = tokenFrom(first.output());
    const headers = { authorization: `Bearer ${token}` };
    const tenant = await fetch(`${first.baseUrl}/admin/tenants`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Stopping',
        slug: 'stopping-school',
        owner: { email: 'head@stopping.test' },
      }),
    });
    const { tenantId } = (await jsonOf(tenant)).data;
    const posted = await fetch(`${first.baseUrl}/tenants/${tenantId}/roster-imports`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/csv' },
      body: csvOf('email,role', ...students(ROWS, 'sigterm')),
    });
    expect(posted.status).toBe(202);
    const { importId } = (await jsonOf(posted)).data;
    first.child.kill('SIGTERM');
    expect(await first.exit).toEqual({ code: 0, signal: null });
    expect(first.output()).toMatch(/roster import finished/);

    const second = await spawnServer(env, workdir);
    try {
      const got = await fetch(`${second.baseUrl}/tenants/${tenantId}/roster-imports/${importId}`, {
        headers,
      });
      expect((await jsonOf(got)).data).toMatchObject({ status: 'SUCCEEDED', summary: { create: ROWS } });
    } finally {
      second.child.kill('SIGTERM');
      await second.exit;
    }
  });
});
