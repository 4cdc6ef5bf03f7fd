import { parseArgs } from 'node:util';
import {
  MEMBERSHIP_EXPORT_FORMATS,
  MEMBERSHIP_STATUSES,
  ROLES,
  ROSTER_BYTES_MAX,
  ROSTER_IMPORT_MODES,
  ROSTER_ROWS_MAX,
} from '@tms/contract';

export const USAGE = `usage:
  npm run roster -- import --tenant TENANT_ID FILE.csv [--mode add|sync] [--dry-run] [--max-removal-percent N]
  npm run -s roster -- export --tenant TENANT_ID [--format csv|ndjson] [--role ROLE] [--status STATUS]... [--out FILE]

  --url URL      the service (or TMS_URL; default http://127.0.0.1:3000)
  --token TOKEN  a bearer token of the tenant's OWNER or ADMIN (or TMS_TOKEN; \`npm run -s token -- --sub SUB\`)

import sends FILE as text/csv (at most ${ROSTER_BYTES_MAX / 1024 / 1024} MiB and ${ROSTER_ROWS_MAX.toLocaleString('en-US')} rows; format: docs/rosters.md),
waits for the service to finish, and prints what it did (a dry run: would do) and every error by row.
Exit code: 0 applied, or a dry run that applying would not refuse; 1 refused or failed; 2 usage.
export writes every membership to FILE, or to stdout (\`npm run -s\` keeps npm's own lines out of it).`;

/** A command line the service should not be called with: exit code 2, with the usage. */
export class UsageError extends Error {}

export type Target = { url: string; token: string; tenantId: string };

export type RosterCommand =
  | (Target & {
      command: 'import';
      file: string;
      mode: (typeof ROSTER_IMPORT_MODES)[number];
      dryRun: boolean;
      maxRemovalPercent: number | undefined;
    })
  | (Target & {
      command: 'export';
      format: (typeof MEMBERSHIP_EXPORT_FORMATS)[number];
      role: string | undefined;
      statuses: string[];
      out: string | undefined;
    });

/** The service's default address: server/src/config.ts listens on 127.0.0.1:3000 unless told otherwise. */
const DEFAULT_URL = 'http://127.0.0.1:3000';

const OPTIONS = {
  tenant: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  mode: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'max-removal-percent': { type: 'string' },
  format: { type: 'string' },
  role: { type: 'string' },
  status: { type: 'string', multiple: true },
  out: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

const IMPORT_ONLY = ['mode', 'dry-run', 'max-removal-percent'] as const;
const EXPORT_ONLY = ['format', 'role', 'status', 'out'] as const;

/** `environment` is where TMS_URL and TMS_TOKEN come from; flags win over it. */
export function parseCommandLine(
  args: string[],
  environment: { TMS_URL?: string; TMS_TOKEN?: string },
): RosterCommand | 'help' {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[] }>
  >;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, ...rest] = positionals;
  if (command !== 'import' && command !== 'export')
    throw new UsageError(command ? `unknown command "${command}"` : 'say import or export');
  const misplaced = (command === 'import' ? EXPORT_ONLY : IMPORT_ONLY).filter((name) => name in values);
  if (misplaced.length > 0) throw new UsageError(`${command} takes no --${misplaced.join(', --')}`);
  const target = targetOf(values, environment);
  if (command === 'export') {
    if (rest.length > 0)
      throw new UsageError(`export takes no file argument (got ${rest.join(' ')}); use --out`);
    return {
      command,
      ...target,
      format: oneOf('--format', values.format ?? 'csv', MEMBERSHIP_EXPORT_FORMATS),
      role: values.role === undefined ? undefined : oneOf('--role', values.role.toUpperCase(), ROLES),
      statuses: (values.status ?? []).map((status) =>
        oneOf('--status', status.toUpperCase(), MEMBERSHIP_STATUSES),
      ),
      out: values.out,
    };
  }
  const [file, ...extra] = rest;
  if (!file) throw new UsageError('import needs the CSV file');
  if (extra.length > 0) throw new UsageError(`import takes one file (got ${rest.join(' ')})`);
  return {
    command,
    ...target,
    file,
    mode: oneOf('--mode', values.mode ?? 'add', ROSTER_IMPORT_MODES),
    dryRun: values['dry-run'] ?? false,
    maxRemovalPercent: percentOf(values['max-removal-percent']),
  };
}

function targetOf(
  values: { tenant?: string; url?: string; token?: string },
  environment: { TMS_URL?: string; TMS_TOKEN?: string },
): Target {
  if (!values.tenant) throw new UsageError('--tenant TENANT_ID is required');
  const token = values.token ?? environment.TMS_TOKEN;
  if (!token) throw new UsageError('no token: pass --token or set TMS_TOKEN');
  const url = values.url ?? (environment.TMS_URL || DEFAULT_URL);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new UsageError(`--url must be an http(s) URL (got "${url}")`);
  return { url, token, tenantId: values.tenant };
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

function percentOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const percent = Number(value);
  if (value.trim() === '' || !Number.isFinite(percent) || percent < 0 || percent > 100)
    throw new UsageError(`--max-removal-percent must be a number from 0 to 100 (got "${value}")`);
  return percent;
}
