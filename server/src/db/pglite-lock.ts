import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirectoryInUseError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is a single-process database: a second process writing the same directory would corrupt
 * it. The lock file holds the owner's pid; a lock left by a dead process is taken over.
 */
export function lockDataDirectory(dataDir: string): () => void {
  const file = join(dataDir, 'tms.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new DataDirectoryInUseError(
          `the embedded database ${dataDir} is in use by process ${owner}; stop it first, or set PGLITE_DATA_DIR`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new DataDirectoryInUseError(`could not lock ${dataDir}`);
}
