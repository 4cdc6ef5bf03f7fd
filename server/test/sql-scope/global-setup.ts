import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { checkStatements, describeOffenders, readCaptured, summarise } from './check.js';

const LOG_ROOT = fileURLToPath(new URL('../../.sql-log/', import.meta.url));
const A_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Gives every worker of this run a directory of its own for the statements it sees (capture.ts);
 * at the end, checks them all. A directory per run, because several runs may share the checkout.
 */
export default function setup(project: TestProject) {
  mkdirSync(LOG_ROOT, { recursive: true });
  // The logs a failed run kept for its reader, once nobody reads them any more.
  for (const name of readdirSync(LOG_ROOT)) {
    const path = join(LOG_ROOT, name);
    if (Date.now() - statSync(path).mtimeMs > A_DAY_MS) rmSync(path, { recursive: true, force: true });
  }
  const runDir = join(LOG_ROOT, `run-${process.pid}-${Date.now()}`);
  mkdirSync(runDir);
  project.provide('sqlScopeRunDir', runDir);
  return async () => {
    try {
      await checkRun(runDir);
    } catch (error) {
      // A teardown that throws is only logged by vitest, which still exits 0: a check that cannot
      // run must fail the run as loudly as one that finds something.
      console.error('\nSQL tenant scope: the check could not run', error);
      process.exitCode = 1;
    }
  };
}

async function checkRun(runDir: string): Promise<void> {
  const { statements, opened } = readCaptured(runDir);
  const outcome = { ...(await checkStatements(statements)), opened };
  // Databases were opened and not one statement came back: the capture is broken, and a check
  // of nothing would pass for ever.
  const blind = opened > 0 && statements.length === 0;
  if (outcome.offenders.length === 0 && !blind) {
    if (statements.length > 0) process.stdout.write(`\n${summarise(outcome)}\n`);
    rmSync(runDir, { recursive: true, force: true });
    return;
  }
  const found = blind
    ? 'SQL tenant scope: databases were opened but no statement was captured'
    : describeOffenders(outcome.offenders);
  console.error(`\n${found}\n\n(the captured statements are kept in ${runDir})\n`);
  process.exitCode = 1;
}
