import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/db/client.js';

const SERVER = fileURLToPath(new URL('../..', import.meta.url));

/** Every file under `dir`, sorted, with its path relative to SERVER. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
}

/**
 * What a migrated data directory depends on: the schema migrations, the data migrations, and the
 * PGlite build that wrote it. A change to any of them names another template.
 */
function templateKey(): string {
  const hash = createHash('sha256');
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pglite = join(entry.slice(0, entry.indexOf('@electric-sql/pglite') + 20), 'package.json');
  for (const path of [
    ...filesUnder(join(SERVER, 'drizzle')),
    join(SERVER, 'src/db/data-migrations.ts'),
    pglite,
  ]) {
    hash.update(path.slice(path.lastIndexOf('node_modules') + 1));
    hash.update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 16);
}

let loaded: Promise<Blob> | undefined;

/**
 * A migrated, empty PGlite data directory, dumped: each test file's in-memory database starts from
 * it instead of running initdb and every migration (seconds each, for 100-odd files per run). Made
 * once per content (kept in the system's temporary directory) and shared by every worker; written
 * under a name of its own and renamed, so that a worker never reads half of one.
 */
export function pgliteTemplate(): Promise<Blob> {
  loaded ??= (async () => {
    const path = join(tmpdir(), `tms-pglite-template-${templateKey()}.tar`);
    if (existsSync(path)) return new Blob([readFileSync(path)]);
    const handle = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
    const client = (handle.db as unknown as { $client: PGlite }).$client;
    const dump = await client.dumpDataDir('none');
    await handle.close();
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
    return dump;
  })();
  return loaded;
}
