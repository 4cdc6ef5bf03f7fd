import { parseCommandLine, USAGE, UsageError } from './roster/command-line.js';
import { runExport } from './roster/export-command.js';
import { type Io, runImport } from './roster/import-command.js';
import { progressOn } from './roster/progress.js';

/**
 * npm run roster: a school's members from a CSV file into a tenant of a running service, or the
 * tenant's members out to one. A client of the HTTP API like any other, so it needs a token and
 * not the database: an administrator runs it from anywhere the service can be reached.
 */
async function main(): Promise<number> {
  // The service's configuration (config.ts) is not this command's: it reads only where to call, and as whom.
  const { TMS_URL, TMS_TOKEN } = process.env;
  let command: ReturnType<typeof parseCommandLine>;
  try {
    command = parseCommandLine(process.argv.slice(2), { TMS_URL, TMS_TOKEN });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command === 'help') {
    console.error(USAGE);
    return 0;
  }
  const io: Io = {
    out: (lines) => {
      if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
    },
    note: (line) => console.error(line),
    progress: progressOn(process.stderr),
  };
  try {
    return command.command === 'import'
      ? await runImport(command, io)
      : await runExport(command, io, process.stdout);
  } catch (error) {
    io.progress.done();
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const { message, cause } = error as Error & { cause?: Error };
    // fetch-style errors hide the reason (ECONNREFUSED, a TLS failure) in the cause.
    console.error(`roster: ${message}${cause?.message ? ` (${cause.message})` : ''}`);
    process.exitCode = 1;
  },
);
