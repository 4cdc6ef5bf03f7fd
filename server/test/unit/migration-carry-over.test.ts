import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/client.js';

/**
 * Migration 0006 (the lifecycle) on a database that already holds data: the tenants, users and
 * memberships written under 0005 come through as an active tenant and ACTIVE memberships with no
 * term, as issue 13 asks. The database is migrated to 0005 from a copy of the folder cut there,
 * filled, then migrated with the real folder.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function migrationsUpTo(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tms-migrations-'));
  dirs.push(dir);
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalFile = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((entry) => entry.tag === tag);
  if (last < 0) throw new Error(`no migration ${tag}`);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
  return dir;
}

describe('migration 0006_lifecycle on existing data', () => {
  it('keeps every tenant active and every membership ACTIVE, with no term and no suspension', async () => {
    const client = new PGlite({ extensions: { pg_trgm } });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsUpTo('0005_member_search') });
    await client.exec(`
      insert into tenants (id, slug, name) values ('01955b12-0535-7604-963c-bac14605396b', 'old-school', 'Old School');
      insert into users (id, subject, email, email_canonical, display_name)
        values ('0194849a-770e-7197-8742-b5eaa607bcfb', 'sub-old', 'old@example.test', 'old@example.test', 'Old Owner');
      insert into tenant_memberships (id, tenant_id, user_id, role)
        values ('01955b12-0537-7391-8ba2-a48c71bf41a8', '01955b12-0535-7604-963c-bac14605396b',
                '0194849a-770e-7197-8742-b5eaa607bcfb', 'OWNER');
    `);
    await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
    const tenants = await client.query<{ deleted_at: Date | null }>('select deleted_at from tenants');
    expect(tenants.rows).toEqual([{ deleted_at: null }]);
    const memberships = await client.query(
      `select role, starts_at, ends_at, suspended_at, suspension_reason, version from tenant_memberships`,
    );
    expect(memberships.rows).toEqual([
      {
        role: 'OWNER',
        starts_at: null,
        ends_at: null,
        suspended_at: null,
        suspension_reason: null,
        version: 1,
      },
    ]);
    await client.close();
  });
});
