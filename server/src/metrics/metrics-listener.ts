import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { register } from 'prom-client';
import type { Logger } from '../logger.js';

/** One scrape: the text Prometheus reads, and its content type. */
export type Scrape = () => Promise<{ contentType: string; body: string }>;

export type MetricsListenerOptions = {
  port: number;
  host: string;
  logger: Logger;
  /** This process's metrics (scrapeThisProcess), or in a cluster's primary every worker's (scrapeCluster). */
  scrape: Scrape;
};

export type MetricsListener = {
  /** Where Prometheus scrapes: `http://host:port/metrics` (the port chosen, when 0 was asked). */
  url: string;
  close(): Promise<void>;
};

export const METRICS_PATH = '/metrics';

/** The metrics of this process: the global registry, where every metric of the service is. */
export const scrapeThisProcess: Scrape = async () => ({
  contentType: register.contentType,
  body: await register.metrics(),
});

/**
 * `GET /metrics` on a listener of its own, never the public one: what the metrics tell (routes
 * used, the backlog, the pool's load) is for the operator, and a scrape's cost is not for anyone
 * to impose. Resolves once listening; rejects if the address cannot be had (the start then fails).
 */
export async function startMetricsListener(options: MetricsListenerOptions): Promise<MetricsListener> {
  const { logger, scrape } = options;
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== METRICS_PATH) {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`not found: try ${METRICS_PATH}\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        logger.warn({ err: error }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('scrape failed\n');
      },
    );
  });
  server.listen(options.port, options.host);
  // Rejects with the server's 'error' (EADDRINUSE, EACCES) if that comes first.
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}${METRICS_PATH}`;
  logger.info({ url }, `metrics served at ${url}`);
  return {
    url,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
