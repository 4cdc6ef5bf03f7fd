import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, scrapeMetrics } from '../support/metrics-text.js';
import { MAIN } from '../support/spawn-server.js';

// What WEB_CONCURRENCY's primary is to do with the metrics, on the built modules: each worker
// records into prom-client's global registry and answers its primary (answerPrimaryScrapes, which
// enableMetrics calls in a worker); the primary alone listens, with scrapeCluster() as its scrape.
const DIST = pathToFileURL(join(MAIN, '..', '/')).href;

const SCRIPT = `
const cluster = (await import(\`node:cluster\`)).default;
const dist = process.env.TMS_DIST;
const scrapes = await import(\`\${dist}metrics/cluster-scrape.js\`);
if (cluster.isPrimary) {
  const { startMetricsListener } = await import(\`\${dist}metrics/metrics-listener.js\`);
  const { createLogger } = await import(\`\${dist}logger.js\`);
  const workers = [cluster.fork({ REFUSALS: '2' }), cluster.fork({ REFUSALS: '3' })];
  await Promise.all(workers.map((worker) => new Promise((ready) => worker.once('message', ready))));
  const listener = await startMetricsListener({
    port: 0, host: '127.0.0.1', logger: createLogger('silent'), scrape: scrapes.scrapeCluster(),
  });
  console.log('metrics served at ' + listener.url);
  process.once('SIGTERM', async () => {
    await listener.close();
    for (const worker of workers) worker.kill();
    process.exit(0);
  });
} else {
  const { countRateLimitRefusal } = await import(\`\${dist}metrics/rate-limit-metrics.js\`);
  const { trackWebhookBacklog } = await import(\`\${dist}metrics/webhook-metrics.js\`);
  scrapes.answerPrimaryScrapes();
  const refusals = Number(process.env.REFUSALS);
  for (let n = 0; n < refusals; n++) countRateLimitRefusal();
  // Every worker counts the same table; here each answers a little differently to see which wins.
  trackWebhookBacklog(async () => 40 + refusals);
  process.send('ready');
}
`;

let workdir: string;
let primary: ChildProcess | undefined;
beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'tms-metrics-cluster-'));
});
afterAll(() => {
  primary?.kill('SIGKILL');
  rmSync(workdir, { recursive: true, force: true });
});

describe('metrics in a cluster', () => {
  it("the primary serves every worker's metrics, summed, and the backlog as the largest count", async () => {
    if (!existsSync(MAIN))
      throw new Error(`${MAIN} is missing: build the server first (npx turbo run build)`);
    const script = join(workdir, 'primary.mjs');
    writeFileSync(script, SCRIPT);
    const child = spawn(process.execPath, [script], {
      env: { PATH: process.env.PATH ?? '', TMS_DIST: DIST },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    primary = child;
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk;
        const match = /metrics served at (\S+)/.exec(output);
        if (match?.[1]) resolve(match[1]);
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('exit', (code) => reject(new Error(`the primary exited with ${code}:\n${output}`)));
    });

    const scraped = await scrapeMetrics(url);
    expect(scraped.status).toBe(200);
    expect(metricValue(scraped, 'rate_limit_refusals_total')).toBe(5);
    expect(metricValue(scraped, 'webhook_backlog')).toBe(43);
    expect(metricValue(scraped, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(0);

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    primary = undefined;
  });
});
