import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export class DataDirectoryInUseError extends Error {}

const inUse = (dataDir: string, owner: number | undefined) =>
  new DataDirectoryInUseError(
    `the embedded database ${dataDir} is in use by ${owner ? `process ${owner}` : 'another process'}; stop it first, or set PGLITE_DATA_DIR`,
  );

/**
 * PGlite is a single-process database: a second process writing the same directory would corrupt
 * it. Take this before PGlite opens the directory; call the returned function once it is closed.
 */
export async function lockDataDirectory(dataDir: string): Promise<() => void> {
  return process.platform === 'linux' ? lockWithSocket(dataDir) : lockWithPidFile(dataDir);
}

/**
 * On Linux the lock is a Unix socket in the abstract namespace, named after the directory's device
 * and inode (the same directory by any path, symlink or bind mount). Binding is atomic, and the
 * kernel unbinds it when the holder's last descriptor closes: at its death, SIGKILL included, and
 * before it is reaped. No pid is trusted, so a dead holder's pid that is still a zombie or has been
 * reused by another process blocks nothing. The holder answers connections with its pid, for the
 * message. (Abstract names are per network namespace: processes in separate containers sharing the
 * volume do not see each other's lock; nor did they see each other's pids.)
 */
async function lockWithSocket(dataDir: string): Promise<() => void> {
  const { dev, ino } = statSync(dataDir, { bigint: true });
  const name = `\0tms-pglite-${dev}-${ino}`;
  const server = createServer((socket) => {
    // Anyone on the machine may connect: a reset from them must not crash the holder.
    socket.on('error', () => {});
    socket.end(String(process.pid));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(name, resolve);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw inUse(dataDir, await askOwner(name));
  }
  // The lock must not keep the process alive on its own, nor fail it over an accept error.
  server.unref();
  server.on('error', () => {});
  // close() releases the descriptor, and with it the name, at once: reopening right after works.
  return () => server.close();
}

/** The holder's pid, or undefined if it does not say within a second (stopped, or stopping). */
function askOwner(name: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(name);
    socket.setTimeout(1000, () => socket.destroy());
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const pid = Number(answer);
      resolve(Number.isInteger(pid) && pid > 0 ? pid : undefined);
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Elsewhere, a lock file holding the owner's pid; a lock left by a dead process is taken over.
 * Weaker: a dead owner's pid that is still a zombie, or reused, keeps the directory locked.
 */
function lockWithPidFile(dataDir: string): () => void {
  const file = join(dataDir, 'tms.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) throw inUse(dataDir, owner);
      rmSync(file, { force: true });
    }
  }
  throw new DataDirectoryInUseError(`could not lock ${dataDir}`);
}
