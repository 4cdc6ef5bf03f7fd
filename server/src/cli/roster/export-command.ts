import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RosterCommand } from './command-line.js';
import type { Io } from './import-command.js';
import { formatBytes, formatCount } from './report.js';
import { endpoint, errorOf, readJson, send } from './service-client.js';

export type ExportCommand = Extract<RosterCommand, { command: 'export' }>;

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Streams the export to FILE (written beside it, then renamed, so that a cut-off export never
 * passes for a whole one) or to stdout; answers the exit code.
 */
export async function runExport(command: ExportCommand, io: Io, stdout: Writable): Promise<number> {
  const url = endpoint(command.url, `/tenants/${encodeURIComponent(command.tenantId)}/memberships/export`, {
    format: command.format,
    role: command.role,
    status: command.statuses,
  });
  const response = await send({ url, method: 'GET', token: command.token, accept: '*/*' });
  if (response.statusCode !== 200) {
    const error = errorOf(await readJson(response));
    io.out([`Not exported: ${error.code} (HTTP ${error.status}): ${error.message}`]);
    return 1;
  }
  const counter = recordCounter(command.format, (bytes) => io.progress.received(bytes, false));
  const partial = command.out && `${command.out}.part`;
  try {
    if (partial) await pipeline(response, counter, createWriteStream(partial));
    else await pipeline(response, counter, stdout, { end: false });
  } catch (error) {
    if (partial) rmSync(partial, { force: true });
    // A reader that stopped early (`| head`) wanted no more: not a failure.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    throw new Error(
      `the export was cut off after ${formatBytes(counter.bytes)}: ${(error as Error).message}`,
    );
  }
  if (partial && command.out) renameSync(partial, command.out);
  io.progress.received(counter.bytes, true);
  io.progress.done();
  const memberships = Math.max(0, counter.records - (command.format === 'csv' ? 1 : 0));
  io.note(
    `exported ${formatCount(memberships)} memberships (${formatBytes(counter.bytes)})${command.out ? ` to ${command.out}` : ''}`,
  );
  return 0;
}

/**
 * Counts the records going through: lines, except (in CSV) the line breaks inside a quoted cell.
 * A quote opens or closes a cell, and an escaped quote ("") closes and reopens it: counting the
 * quotes is enough to know whether a line break is inside one.
 */
function recordCounter(format: ExportCommand['format'], onBytes: (bytes: number) => void) {
  let quoted = false;
  let lineOpen = false;
  const csv = format === 'csv';
  const counter = Object.assign(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        counter.bytes += chunk.length;
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i];
          if (byte === QUOTE && csv) quoted = !quoted;
          lineOpen = byte !== NEWLINE || quoted;
          if (!lineOpen) counter.records += 1;
        }
        onBytes(counter.bytes);
        done(null, chunk);
      },
      flush(done) {
        // The last record, when no line break ends it.
        if (lineOpen) counter.records += 1;
        done();
      },
    }),
    { bytes: 0, records: 0 },
  );
  return counter;
}
