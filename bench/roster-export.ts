import { rssMb } from './processes.js';

export type ExportMeasure = {
  /** Memberships in the download (the CSV header not counted). */
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** The server's resident set size just before the request, and the most seen during it. */
  rssBeforeMb: number;
  rssPeakMb: number;
};

const NEWLINE = 0x0a;
const RSS_EVERY_MS = 100;

/**
 * Downloads a tenant's export once, consuming it as it arrives (never holding it), and samples the
 * server's RSS every 100 ms meanwhile: the export must stream at a flat memory however large the
 * tenant. Rows are counted as lines: the bench's names and addresses hold no line break (a quoted
 * cell may, in general), and NDJSON escapes them. A download cut short by the server rejects.
 */
export async function measureExport(options: {
  url: string;
  token: string;
  tenantId: string;
  /** The server's process, on this machine (/proc). */
  pid: number;
  format?: 'csv' | 'ndjson';
}): Promise<ExportMeasure> {
  const { url, token, tenantId, pid, format = 'csv' } = options;
  const rssBeforeMb = rssMb(pid);
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
  }, RSS_EVERY_MS);
  const started = performance.now();
  try {
    const res = await fetch(`${url}/tenants/${tenantId}/memberships/export?format=${format}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200 || !res.body) {
      throw new Error(`export answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    }
    let lines = 0;
    for await (const chunk of res.body) {
      for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
    const rows = format === 'csv' ? lines - 1 : lines;
    return { rows, seconds, rowsPerSecond: rows / seconds, rssBeforeMb, rssPeakMb };
  } finally {
    clearInterval(sampler);
  }
}
