import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SQL_SNAPSHOT_DIR, sqlSnapshots } from './sql-snapshots/snapshot-files.js';

// `npm run sql:snapshots`: writes server/sql/<name>.sql for every named (prepared) statement, as
// drizzle renders it, and removes the files of statements that are gone; a test fails while the
// committed files are not what this writes (server/test/tools/sql-snapshots.test.ts).
const snapshots = await sqlSnapshots();
mkdirSync(SQL_SNAPSHOT_DIR, { recursive: true });
for (const name of readdirSync(SQL_SNAPSHOT_DIR)) {
  if (name.endsWith('.sql') && !snapshots.has(name)) rmSync(join(SQL_SNAPSHOT_DIR, name));
}
for (const [name, text] of snapshots) writeFileSync(join(SQL_SNAPSHOT_DIR, name), text);
console.warn(`wrote ${snapshots.size} statements to ${relative(process.cwd(), SQL_SNAPSHOT_DIR) || '.'}/`);
