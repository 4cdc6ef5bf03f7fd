import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

export type PrimaryOptions = {
  workers: number;
  logger: Logger;
  /** How long a worker may take to finish its requests after SIGTERM before it is killed. */
  graceMs: number;
};

/**
 * The primary of WEB_CONCURRENCY workers: it serves nothing itself. node:cluster hands the
 * connections of the shared port to the workers in turn; each worker is a whole server (its own
 * pool, webhook deliveries, roster jobs), which PostgreSQL's locks already coordinate across
 * processes. The primary restarts a worker that dies after it started serving, stops everything
 * when one cannot start (the same configuration would fail again, in a loop), and on SIGTERM or
 * SIGINT passes the signal on and exits once every worker has drained.
 */
export function runPrimary({ workers, logger, graceMs }: PrimaryOptions): Promise<number> {
  let stopping = false;
  let exitCode = 0;
  const serving = new Set<number>();
  const running = new Set<Worker>();
  let announced = false;
  let done: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    done = resolve;
  });

  const fork = () => running.add(cluster.fork());

  cluster.on('listening', (worker, address) => {
    serving.add(worker.id);
    if (!announced && serving.size === workers) {
      announced = true;
      const host = address.address?.includes(':') ? `[${address.address}]` : address.address;
      logger.info(
        { workers, pid: process.pid },
        `${workers} workers listening on http://${host ?? '127.0.0.1'}:${address.port}`,
      );
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker);
    const wasServing = serving.delete(worker.id);
    if (stopping) {
      // Killed by our SIGTERM before it set up its own handler (still starting): nothing to drain.
      if (code !== 0 && signal !== 'SIGTERM') exitCode = 1;
      if (running.size === 0) done(exitCode);
      return;
    }
    if (!wasServing) {
      // It never listened: the database or the configuration is wrong, and a new one would fail too.
      logger.error({ worker: worker.id, code, signal }, 'a worker could not start: stopping');
      exitCode = 1;
      stop('worker failed to start');
      return;
    }
    logger.error({ worker: worker.id, code, signal }, 'a worker died: starting another');
    fork();
  });

  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, workers: running.size }, 'shutting down: draining every worker');
    if (running.size === 0) done(exitCode);
    for (const worker of running) worker.process.kill('SIGTERM');
    // A worker bounds its own drain; this is only for one that hangs past it.
    setTimeout(() => {
      for (const worker of running) worker.process.kill('SIGKILL');
    }, graceMs + 5_000).unref();
  };

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let i = 0; i < workers; i++) fork();
  return finished;
}
