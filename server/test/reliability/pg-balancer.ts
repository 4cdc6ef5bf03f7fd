import { createServer, type Server } from 'node:http';
import postgres from 'postgres';
import { freePort } from '../support/free-port.js';
import { runHaProxy } from './haproxy-process.js';
import type { Node } from './pg-cluster.js';

/**
 * A TCP balancer in front of a primary and its standby that sends every connection to whichever
 * node is primary now: what a managed database's DNS name or virtual IP does, and what HAProxy does
 * in front of Patroni. HAProxy's health check asks an agent per node (here an HTTP listener of the
 * test's own, as Patroni's REST API answers `GET /primary`): 200 when the node takes writes, 503
 * otherwise. The service sees one host and port, and learns of a failover only by its connections.
 */
export type PgBalancer = {
  /** The database URL through the balancer. */
  url(database: string): string;
  /** How often HAProxy checks, and after how many checks it changes its mind. */
  check: { interMs: number; fall: number; rise: number };
  /** HAProxy's output, for failure messages. */
  log(): string;
  stop(): Promise<void>;
};

const CHECK = { interMs: 500, fall: 2, rise: 1 };

/** An HTTP agent for one node: 200 when it is a primary that answers, 503 otherwise. */
async function primaryAgent(node: Node): Promise<{ port: number; server: Server; sql: postgres.Sql }> {
  const sql = postgres(node.url(), { max: 1, connect_timeout: 1, idle_timeout: 5, onnotice: () => {} });
  const server = createServer((_req, res) => {
    const timer = setTimeout(() => res.writeHead(503).end(), 800);
    sql`select pg_is_in_recovery() as standby`
      .then(([row]) => {
        clearTimeout(timer);
        if (!res.headersSent) res.writeHead(row?.standby === false ? 200 : 503).end();
      })
      .catch(() => {
        clearTimeout(timer);
        if (!res.headersSent) res.writeHead(503).end();
      });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, server, sql };
}

function config(port: number, nodes: { port: number; agent: number }[]): string {
  return [
    'global',
    '  log stdout format raw local0 info',
    'defaults',
    '  mode tcp',
    '  log global',
    '  timeout connect 1s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    'frontend pg',
    `  bind 127.0.0.1:${port}`,
    '  default_backend pg',
    'backend pg',
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    // A node marked down has its sessions cut, as Patroni's HAProxy template does: a client holding
    // a connection to an old primary learns at once that it is gone.
    `  default-server inter ${CHECK.interMs}ms fall ${CHECK.fall} rise ${CHECK.rise} on-marked-down shutdown-sessions`,
    ...nodes.map((n, k) => `  server n${k + 1} 127.0.0.1:${n.port} check port ${n.agent}`),
    '',
  ].join('\n');
}

export async function startPgBalancer(nodes: Node[]): Promise<PgBalancer> {
  const agents = await Promise.all(nodes.map(primaryAgent));
  const port = await freePort();
  const proxy = runHaProxy('tms-pg-balancer-', () =>
    config(
      port,
      nodes.map((node, k) => ({ port: node.port, agent: agents[k]?.port ?? 0 })),
    ),
  );
  const { child } = proxy;
  const stop = async () => {
    await proxy.stop();
    for (const agent of agents) {
      agent.server.close();
      await agent.sql.end({ timeout: 1 }).catch(() => {});
    }
  };
  // Ready once a connection through it reaches the primary.
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const probe = postgres(url('postgres'), { max: 1, connect_timeout: 1, onnotice: () => {} });
  try {
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await probe`select 1`;
        break;
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(
            `the balancer never reached the primary: ${(error as Error).message}\n${proxy.output()}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
  return { url, check: CHECK, log: proxy.output, stop };
}
