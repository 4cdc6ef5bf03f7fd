import net from 'node:net';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbandonedBackends } from '../../src/db/abandoned-backends.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';
import { until } from '../support/until.js';

// The backends a destroyed socket leaves are ended through the service's own pool, which drizzle
// wraps: drizzle hands timestamps to postgres.js unserialised, so a Date parameter there failed
// every attempt (found by the outage test: a session cut mid-statement kept a tenant's lock).

const APPLICATION = 'tms-abandoned-backends-test';

let database: BareDatabase;
beforeAll(async () => {
  database = await createBareDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('ending abandoned backends on PostgreSQL', () => {
  it('ends the backend of a socket given up, through a pool that drizzle wraps, and only it', async () => {
    const backends = new AbandonedBackends();
    const sockets: net.Socket[] = [];
    const session = () =>
      postgres(database.url, {
        max: 1,
        onnotice: () => {},
        connection: { application_name: APPLICATION },
        socket: ({ host, port }: { host: string[]; port: number[] }) => {
          const socket = net.connect(port[0] as number, host[0] as string);
          backends.watch(socket);
          sockets.push(socket);
          return socket;
        },
      } as postgres.Options<Record<string, never>>);
    const [abandoned, kept] = [session(), session()];
    const pidOf = async (sql: postgres.Sql) => (await sql`select pg_backend_pid() as pid`)[0]?.pid as number;
    const [abandonedPid, keptPid] = [await pidOf(abandoned), await pidOf(kept)];
    const pool = postgres(database.url, { max: 1, onnotice: () => {} });
    drizzle(pool);
    try {
      backends.abandon(sockets[0] as net.Socket);
      expect(await backends.terminate(pool, APPLICATION)).toBe(1);
      // pg_terminate_backend signals: the backend leaves pg_stat_activity as it exits, a moment later.
      const alive = async () =>
        (
          await pool<{ pid: number }[]>`
            select pid from pg_stat_activity where application_name = ${APPLICATION}`
        ).map((row) => row.pid);
      await until('the abandoned backend gone', async () => !(await alive()).includes(abandonedPid), 5000);
      expect(await alive()).toEqual([keptPid]);
    } finally {
      backends.stop();
      await Promise.all([abandoned.end({ timeout: 1 }), kept.end({ timeout: 1 }), pool.end({ timeout: 1 })]);
    }
  });
});
