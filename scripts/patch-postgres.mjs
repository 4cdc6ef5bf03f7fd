// Patches postgres.js (pinned to 3.4.9 in server/package.json) against a crash upstream has not
// fixed yet (porsager/postgres#1154, #1208): when a connection dies while a transaction is open,
// its ROLLBACK is written later, from a timer, to a socket that no longer exists, and the
// TypeError ends the process. Patched, the write fails that connection's queries instead, and
// the pool reconnects. Runs on every install; idempotent; refuses loudly if the code changed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MARK = '/* tms-patch: write-after-close */';
const EDITS = [
  {
    find: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    replace: `  function nextWrite(fn) {
    ${MARK}
    if (!socket) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`,
  },
  // A write scheduled before a close must not be sent on the socket of the next connection.
  {
    find: '    clearImmediate(nextWriteTimer)\n    if (socket) {',
    replace: '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {',
  },
  {
    find: '    clearImmediate(nextWriteTimer)\n    socket.removeListener',
    replace:
      '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    socket.removeListener',
  },
];

// Where npm put it: hoisted to the root, or kept under the server workspace.
const root = ['server/node_modules/postgres', 'node_modules/postgres'].find((dir) =>
  existsSync(join(dir, 'package.json')),
);
if (!root) {
  console.warn('patch-postgres: postgres is not installed here; nothing to patch');
  process.exit(0);
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (version !== '3.4.9') {
  console.error(
    `patch-postgres: written for postgres 3.4.9, found ${version}: check whether upstream fixed it`,
  );
  process.exit(1);
}
for (const file of ['src/connection.js', 'cjs/src/connection.js'].map((f) => join(root, f))) {
  if (!existsSync(file)) continue;
  let source = readFileSync(file, 'utf8');
  if (source.includes(MARK)) continue;
  for (const { find, replace } of EDITS) {
    if (!source.includes(find)) {
      console.error(`patch-postgres: ${file} does not contain the expected code; not patched`);
      process.exit(1);
    }
    source = source.replace(find, replace);
  }
  writeFileSync(file, source);
  console.warn(`patch-postgres: patched ${file}`);
}
