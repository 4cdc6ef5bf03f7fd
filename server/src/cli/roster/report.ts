import type { RosterImport, RosterSummary } from '@tms/contract';

/** A table stops here: past a few screens, the file needs fixing at its source, not reading. */
export const TABLE_LINES_MAX = 50;

export type Problem = { row: number | null; column: string | null; code: string; message: string };

const numbers = new Intl.NumberFormat('en-US');
export const formatCount = (n: number) => numbers.format(n);

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const SUMMARY_LINES: [keyof RosterSummary, string][] = [
  ['create', 'added (unknown emails invited)'],
  ['updateRole', 'role changed'],
  ['updateTerm', 'dates changed'],
  ['remove', 'removed'],
  ['unchanged', 'unchanged'],
  ['invalid', 'invalid rows'],
];

/** What the import did, or (a dry run, a refusal) would have done. */
export function summaryLines(result: RosterImport): string[] {
  const { mode, dryRun, status, failure, progress } = result;
  const rows = `${formatCount(progress.rowsTotal)} rows, mode ${mode}`;
  const head = dryRun
    ? failure
      ? `Dry run (${rows}): nothing changed. Applying would be refused: ${failure.code}: ${failure.message}`
      : `Dry run (${rows}): nothing changed. Applying would do:`
    : status === 'SUCCEEDED'
      ? `Applied (${rows}):`
      : `Not applied (${rows}), nothing changed: ${failure?.code ?? status}: ${failure?.message ?? ''}`.trim();
  const width = Math.max(...SUMMARY_LINES.map(([key]) => formatCount(result.summary[key]).length));
  return [
    head,
    ...SUMMARY_LINES.map(([key, label]) => `  ${formatCount(result.summary[key]).padStart(width)}  ${label}`),
  ];
}

/**
 * Aligned columns, one problem a line, in the order the service gave (by row). The message comes
 * last and unpadded: it is the one column of free length.
 */
export function problemTable(title: string, problems: Problem[]): string[] {
  if (problems.length === 0) return [];
  const shown = problems.slice(0, TABLE_LINES_MAX);
  const cells = shown.map((p) => [p.row === null ? '-' : String(p.row), p.column ?? '-', p.code, p.message]);
  const header = ['row', 'column', 'code', 'message'];
  const widths = header.map((name, i) =>
    Math.max(name.length, ...cells.map((cell) => (cell[i] ?? '').length)),
  );
  const line = (cell: string[]) =>
    `  ${cell
      .map((value, i) => (i === cell.length - 1 ? value : value.padEnd(widths[i] ?? 0)))
      .join('  ')}`.trimEnd();
  const more = problems.length - shown.length;
  return [
    `${title} (${formatCount(problems.length)}):`,
    line(header),
    ...cells.map(line),
    ...(more > 0 ? [`  … and ${formatCount(more)} more`] : []),
  ];
}
