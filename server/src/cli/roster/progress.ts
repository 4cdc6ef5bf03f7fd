import { formatBytes, formatCount } from './report.js';

/** Where the command says how far it is: stderr, so that stdout keeps the result alone. */
export type Progress = {
  sent(bytes: number, total: number): void;
  rows(read: number, total: number, status: string): void;
  received(bytes: number, finished: boolean): void;
  /** Ends the bar's line, if one is drawn. */
  done(): void;
};

type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** A bar redrawn in place on a terminal; on anything else, a few plain lines (a log stays readable). */
export function progressOn(stream: Stream): Progress {
  return stream.isTTY ? barOn(stream) : linesOn(stream);
}

const REDRAW_EVERY_MS = 100;

function barOn(stream: Stream): Progress {
  let drawnAt = 0;
  let drawn = false;
  const draw = (label: string, fraction: number, figures: string, force: boolean) => {
    const now = Date.now();
    if (!force && now - drawnAt < REDRAW_EVERY_MS) return;
    drawnAt = now;
    drawn = true;
    const width = Math.max(10, Math.min(40, (stream.columns || 80) - label.length - figures.length - 12));
    const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
    const percent = `${Math.floor(fraction * 100)}`.padStart(3);
    stream.write(
      `\r\x1b[K${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}%  ${figures}`,
    );
  };
  return {
    sent: (bytes, total) =>
      draw(
        'uploading',
        total === 0 ? 1 : bytes / total,
        `${formatBytes(bytes)} / ${formatBytes(total)}`,
        bytes === total,
      ),
    rows: (read, total, status) =>
      draw(
        'importing',
        total === 0 ? 0 : read / total,
        `${formatCount(read)} / ${formatCount(total)} rows  ${status}`,
        status !== 'RUNNING',
      ),
    received: (bytes, finished) => {
      const now = Date.now();
      if (!finished && now - drawnAt < REDRAW_EVERY_MS) return;
      drawnAt = now;
      drawn = true;
      stream.write(`\r\x1b[Kexporting ${formatBytes(bytes)}`);
    },
    done: () => {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

const LINE_EVERY_MS = 5_000;

function linesOn(stream: Stream): Progress {
  let lastStatus = '';
  let lineAt = 0;
  return {
    sent: (bytes, total) => {
      if (bytes === total) stream.write(`uploaded ${formatBytes(total)}\n`);
    },
    rows: (read, total, status) => {
      const now = Date.now();
      if (status === lastStatus && now - lineAt < LINE_EVERY_MS) return;
      lastStatus = status;
      lineAt = now;
      stream.write(`${status}: ${formatCount(read)} of ${formatCount(total)} rows read\n`);
    },
    // The export's one line comes at its end, with the count of memberships.
    received: () => {},
    done: () => {},
  };
}
