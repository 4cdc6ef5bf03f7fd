import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROSTER_BYTES_MAX, type RosterImport, RosterImportSchema, successEnvelope } from '@tms/contract';
import { type RosterCommand, UsageError } from './command-line.js';
import type { Progress } from './progress.js';
import { formatBytes, type Problem, problemTable, summaryLines } from './report.js';
import { type Answer, endpoint, errorOf, readJson, type ServiceError, send } from './service-client.js';

export type ImportCommand = Extract<RosterCommand, { command: 'import' }>;
/** stdout gets the result; stderr the progress and notes. */
export type Io = { out(lines: string[]): void; note(line: string): void; progress: Progress };

const RosterImportAnswer = successEnvelope(RosterImportSchema);

/** Polling starts quick (a few thousand rows take a second or two), then slows to this. */
const POLL_FIRST_MS = 250;
const POLL_MAX_MS = 2_000;
/** Failed polls in a row (the service restarting, a 503) before giving up. */
const POLL_FAILURES_MAX = 5;

/** Uploads the file, follows a 202 to its end, prints the result; answers the exit code. */
export async function runImport(command: ImportCommand, io: Io): Promise<number> {
  const size = sizeOf(command.file);
  if (size > ROSTER_BYTES_MAX) {
    io.out([
      `${command.file} is ${formatBytes(size)}: the service takes at most ${formatBytes(ROSTER_BYTES_MAX)} per import; split the file.`,
    ]);
    return 1;
  }
  const url = endpoint(command.url, `/tenants/${encodeURIComponent(command.tenantId)}/roster-imports`, {
    mode: command.mode,
    dryRun: command.dryRun ? 'true' : undefined,
    maxRemovalPercent: command.maxRemovalPercent?.toString(),
  });
  const response = await send({
    url,
    method: 'POST',
    token: command.token,
    accept: 'application/json',
    upload: {
      file: command.file,
      size,
      contentType: 'text/csv',
      onSent: (bytes) => io.progress.sent(bytes, size),
    },
  });
  const answer = await readJson(response);
  io.progress.done();
  const started = importOf(answer);
  const finished = 'code' in started || started.status === 'SUCCEEDED' || started.status === 'FAILED';
  const result = finished ? started : await untilFinished(command, started, io.progress);
  io.progress.done();
  if ('code' in result) {
    io.out(refusalLines(result));
    return 1;
  }
  io.out([
    ...summaryLines(result),
    ...problemTable('Errors', result.errors),
    ...problemTable('Warnings', result.warnings),
  ]);
  if (result.dryRun) return result.failure ? 1 : 0;
  return result.status === 'SUCCEEDED' && !result.failure ? 0 : 1;
}

function sizeOf(file: string): number {
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a file');
    return stat.size;
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

function importOf(answer: Answer): RosterImport | ServiceError {
  if (answer.status !== 200 && answer.status !== 202) return errorOf(answer);
  const parsed = RosterImportAnswer.safeParse(answer.body);
  if (!parsed.success)
    throw new Error(
      `unexpected answer (HTTP ${answer.status}): ${JSON.stringify(answer.body).slice(0, 300)}`,
    );
  return parsed.data.data;
}

/** GETs the import with a growing pause until it has SUCCEEDED or FAILED. */
async function untilFinished(
  command: ImportCommand,
  first: RosterImport,
  progress: Progress,
): Promise<RosterImport | ServiceError> {
  const url = endpoint(
    command.url,
    `/tenants/${encodeURIComponent(command.tenantId)}/roster-imports/${encodeURIComponent(first.importId)}`,
  );
  let current = first;
  let pause = POLL_FIRST_MS;
  let failures = 0;
  while (current.status === 'QUEUED' || current.status === 'RUNNING') {
    progress.rows(current.progress.rowsRead, current.progress.rowsTotal, current.status);
    await sleep(pause);
    pause = Math.min(POLL_MAX_MS, pause * 1.5);
    const answer = await send({ url, method: 'GET', token: command.token, accept: 'application/json' })
      .then(readJson)
      .catch((error: Error) => error);
    if (!(answer instanceof Error) && answer.status === 200) {
      const next = importOf(answer);
      if ('code' in next) return next;
      current = next;
      failures = 0;
      continue;
    }
    const passing = answer instanceof Error || answer.status === 429 || answer.status >= 502;
    failures += 1;
    if (!passing) return errorOf(answer);
    if (failures >= POLL_FAILURES_MAX) {
      const reason = answer instanceof Error ? answer.message : `HTTP ${answer.status}`;
      throw new Error(
        `lost track of import ${first.importId}, which may still finish (GET ${url}): ${reason}`,
      );
    }
    if (!(answer instanceof Error)) pause = Math.max(pause, retryAfterMs(answer) ?? 0);
  }
  progress.rows(current.progress.rowsRead, current.progress.rowsTotal, current.status);
  return current;
}

function retryAfterMs(answer: Answer): number | undefined {
  const seconds = Number(answer.headers['retry-after']);
  return Number.isFinite(seconds) ? Math.min(60, seconds) * 1000 : undefined;
}

/** A refusal in the error envelope: ROSTER_INVALID lists each row's errors in `details`. */
function refusalLines(error: ServiceError): string[] {
  const problems: Problem[] = error.details.map((detail) => ({
    row: detail.row ?? null,
    column: detail.column ?? (detail.code ? null : detail.path),
    code: detail.code ?? '-',
    message: detail.message,
  }));
  return [
    `Not applied, nothing changed: ${error.code} (HTTP ${error.status}): ${error.message}`,
    ...problemTable('Errors', problems),
  ];
}
