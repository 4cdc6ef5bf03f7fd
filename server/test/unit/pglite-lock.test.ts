import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirectoryInUseError, lockDataDirectory } from '../../src/db/pglite-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'tms-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the PGlite data-directory lock', () => {
  it('is held once, even within one process, and is free again as soon as it is released', async () => {
    const unlock = await lockDataDirectory(dir);
    const second = await Promise.resolve()
      .then(() => lockDataDirectory(dir))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(second).toBeInstanceOf(DataDirectoryInUseError);
    expect((second as Error).message).toContain(`in use by process ${process.pid}`);
    unlock();
    const again = await lockDataDirectory(dir);
    again();
  });
});
