import { sql as dsql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/db-errors.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';

// postgres.js itself, without the service around it: what happens to a transaction whose
// connection the server kills (pg_terminate_backend here; idle_in_transaction_session_timeout,
// a restart or a failover in production) while the pool reconnects that same connection for
// other work. Unpatched 3.4.9 lets the transaction's later statements, its COMMIT included, run
// on the new session outside any transaction (porsager/postgres#1155, #1186, #1215), and the
// connection keeps the killed session's query and error (the first query of the next session
// fails with it; end() waits for ever). patches/postgres+3.4.9.patch, applied at install, fixes
// both; every test here fails without it (see patches/README.md). Its costs: driver-costs.test.ts.
//
// Every pool here has one connection, so that the connection the transaction held is the one the
// pool reconnects. No sleep decides an outcome: each step waits for the event it needs (the one
// timer is the server's idle_in_transaction_session_timeout, which is that test's event).

let database: BareDatabase;
let admin: postgres.Sql;

const pool = (options: postgres.Options<Record<string, postgres.PostgresType>> = {}) =>
  postgres(database.url, { max: 1, onnotice: () => {}, ...options });

type Deferred<T> = { promise: Promise<T>; resolve(value: T): void };
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

type Outcome =
  | { state: 'pending' }
  | { state: 'fulfilled'; value: unknown }
  | { state: 'rejected'; code: unknown };
/** Follows a promise without awaiting it: `.current` is its outcome so far. */
function track(promise: PromiseLike<unknown>): { current: Outcome; settled: Promise<Outcome> } {
  const tracker: { current: Outcome; settled: Promise<Outcome> } = {
    current: { state: 'pending' },
    settled: Promise.resolve(promise).then(
      (value) => (tracker.current = { state: 'fulfilled', value }),
      (error: { code?: unknown; message?: unknown }) =>
        (tracker.current = { state: 'rejected', code: error?.code ?? error?.message }),
    ),
  };
  return tracker;
}

/** How a statement in flight fails when its backend is killed: the server's FIN, or a reset. */
const LOST = expect.stringMatching(/^(CONNECTION_CLOSED|ECONNRESET)$/);

async function backendPid(sql: postgres.Sql | postgres.TransactionSql): Promise<number> {
  const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  if (!row) throw new Error('no pid');
  return row.pid;
}

/** Returns once the backend runs pg_sleep: the statement was sent, and is not answered. */
async function untilSleeping(pid: number): Promise<void> {
  for (;;) {
    const [row] = await admin<{ sleeping: boolean }[]>`
      select state = 'active' and wait_event = 'PgSleep' as sleeping from pg_stat_activity where pid = ${pid}`;
    if (row?.sleeping) return;
  }
}

async function terminate(pid: number): Promise<void> {
  const [row] = await admin<{ done: boolean }[]>`select pg_terminate_backend(${pid}) as done`;
  expect(row?.done).toBe(true);
}

async function notes(test: string): Promise<string[]> {
  const rows = await admin<{ note: string }[]>`select note from driver_tx where test = ${test} order by note`;
  return rows.map((r) => r.note);
}

beforeAll(async () => {
  database = await createBareDatabase();
  admin = postgres(database.url, { max: 1, onnotice: () => {} });
  await admin`create table driver_tx (test text not null, note text not null)`;
});

afterAll(async () => {
  await admin?.end({ timeout: 5 });
  await database?.drop();
});

describe('postgres.js: a transaction whose connection died', () => {
  it('does not run its later statements on the reconnected connection', async () => {
    const sql = pool();
    try {
      let pid = 0;
      const blocked = deferred();
      const reconnected = deferred();
      const late = deferred<Outcome>();
      const transaction = track(
        sql.begin(async (tx) => {
          pid = await backendPid(tx);
          await tx`insert into driver_tx values ('late', 'before the kill')`;
          // Sent, not answered, when the backend dies.
          const blocker = tx`select pg_sleep(60)`.catch(() => {});
          blocked.resolve();
          await blocker;
          await reconnected.promise;
          const insert = tx<{ pid: number }[]>`insert into driver_tx values ('late', 'after the kill')
            returning pg_backend_pid() as pid`;
          late.resolve(await track(insert.then(([row]) => row?.pid)).settled);
        }),
      );
      await blocked.promise;
      await untilSleeping(pid);
      // Waits for the pool's only connection: the pool reconnects it for this query.
      const other = track(backendPid(sql));
      await terminate(pid);

      expect(await transaction.settled).toEqual({ state: 'rejected', code: 'CONNECTION_CLOSED' });
      await other.settled;
      reconnected.resolve();
      // Unpatched: { state: 'fulfilled', value: <the new backend's pid> }, and the row is committed.
      expect(await late.promise).toEqual({ state: 'rejected', code: 'CONNECTION_CLOSED' });
      expect(await notes('late')).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('rejects the statements waiting in its own queue instead of leaving them pending (#1186)', async () => {
    const sql = pool();
    try {
      let pid = 0;
      const blocked = deferred();
      let queued: ReturnType<typeof track> | undefined;
      const transaction = track(
        sql.begin(async (tx) => {
          pid = await backendPid(tx);
          // With a parameter, the statement is described before it runs, and the transaction's
          // next statements wait in its own queue, not on the connection.
          const blocker = track(tx`select pg_sleep(${60})`);
          queued = track(tx`insert into driver_tx values ('queued', ${'queued behind the blocker'})`);
          blocked.resolve();
          await blocker.settled;
          await queued.settled;
        }),
      );
      await blocked.promise;
      await untilSleeping(pid);
      await terminate(pid);

      expect(await transaction.settled).toEqual({ state: 'rejected', code: 'CONNECTION_CLOSED' });
      // A round trip on the reconnected connection: anything that was going to settle has.
      await track(backendPid(sql)).settled;
      // Unpatched: { state: 'pending' }, for ever.
      expect(queued?.current).toEqual({ state: 'rejected', code: 'CONNECTION_CLOSED' });
      expect(await notes('queued')).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('does not send its COMMIT into the transaction that next holds the connection', async () => {
    const sql = pool();
    try {
      let pidA = 0;
      const aIdle = deferred();
      const bInserted = deferred();
      const aReturned = deferred();
      // A is idle in its transaction when its backend dies, as after idle_in_transaction_session_timeout.
      const a = track(
        sql.begin(async (tx) => {
          pidA = await backendPid(tx);
          aIdle.resolve();
          await bInserted.promise;
          aReturned.resolve();
          return 'A'; // postgres.js now sends A's COMMIT through A's transaction
        }),
      );
      await aIdle.promise;
      await terminate(pidA);
      expect(await a.settled).toEqual({ state: 'rejected', code: 'CONNECTION_CLOSED' });

      // B gets the reconnected connection.
      const b = track(
        sql.begin(async (tx) => {
          await tx`insert into driver_tx values ('late-commit', 'by B, which rolls back')`;
          bInserted.resolve();
          await aReturned.promise;
          // Every microtask A's return set off has run: its COMMIT, if any, went out before
          // the ROLLBACK that B's error sends.
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error('B rolls back');
        }),
      );
      expect(await b.settled).toEqual({ state: 'rejected', code: 'B rolls back' });
      // Unpatched: A's COMMIT committed B's half-done transaction: the row is there.
      expect(await notes('late-commit')).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('fails its later statements after idle_in_transaction_session_timeout ended it', async () => {
    const sql = pool({ connection: { idle_in_transaction_session_timeout: 200 } });
    try {
      const ended = deferred();
      const late = deferred<Outcome>();
      const transaction = track(
        sql.begin(async (tx) => {
          await tx`insert into driver_tx values ('idle', 'before the timeout')`;
          // Idle in transaction until the server has ended the session and the pool has a new one.
          await ended.promise;
          late.resolve(await track(tx`insert into driver_tx values ('idle', 'after the timeout')`).settled);
        }),
      );
      // The server ends the session (25P03) once the transaction has idled 200 ms.
      expect(await transaction.settled).toEqual({ state: 'rejected', code: 'CONNECTION_CLOSED' });
      expect(await track(backendPid(sql)).settled).toMatchObject({ state: 'fulfilled' });
      ended.resolve();
      // Unpatched: { state: 'fulfilled', value: [] }, and the row is committed.
      expect(await late.promise).toEqual({ state: 'rejected', code: 'CONNECTION_CLOSED' });
      expect(await notes('idle')).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('fails through drizzle with an error the service answers 503 for', async () => {
    const client = pool();
    const db = drizzle(client);
    try {
      let pid = 0;
      const blocked = deferred();
      const late = deferred<unknown>();
      const transaction = db
        .transaction(async (tx) => {
          const [row] = await tx.execute<{ pid: number }>(dsql`select pg_backend_pid() as pid`);
          pid = row?.pid ?? 0;
          await tx.execute(dsql`insert into driver_tx values ('drizzle', 'before the kill')`);
          blocked.resolve();
          await tx.execute(dsql`select pg_sleep(60)`).catch(() => {});
          await backendPid(client).catch(() => {}); // the pool has a new session
          late.resolve(
            await tx.execute(dsql`insert into driver_tx values ('drizzle', 'after the kill')`).then(
              () => 'ran',
              (error: unknown) => error,
            ),
          );
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      await blocked.promise;
      await untilSleeping(pid);
      await terminate(pid);

      const error = await transaction;
      expect(isDatabaseUnavailable(error)).toBe(true);
      // Unpatched: 'ran', and the row is committed.
      const lateOutcome = await late.promise;
      expect(lateOutcome).not.toBe('ran');
      expect(isDatabaseUnavailable(lateOutcome)).toBe(true);
      expect(await notes('drizzle')).toEqual([]);
    } finally {
      await client.end({ timeout: 1 });
    }
  });
});

describe('postgres.js: a connection the server killed during a query', () => {
  it("answers the first query on the reconnected connection, not with the killed backend's error", async () => {
    const sql = pool();
    try {
      const pid = await backendPid(sql);
      // With a parameter, the statement is described first: the next query is not pipelined
      // behind it but waits in the pool for the connection, and runs on its next session.
      const sleeping = track(sql`select pg_sleep(${60})`);
      await untilSleeping(pid);
      const next = track(backendPid(sql));
      await terminate(pid);

      expect(await sleeping.settled).toEqual({ state: 'rejected', code: LOST });
      // Unpatched: { state: 'rejected', code: '57P01' }, the FATAL the old backend sent.
      expect(await next.settled).toEqual({ state: 'fulfilled', value: expect.any(Number) });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('lets end() finish without a timeout', async () => {
    const sql = pool();
    const pid = await backendPid(sql);
    const sleeping = track(sql`select pg_sleep(60)`);
    await untilSleeping(pid);
    await terminate(pid);
    expect(await sleeping.settled).toEqual({ state: 'rejected', code: LOST });
    // Unpatched, it waits for ever for an answer to the query the dead connection still holds.
    await sql.end();
  }, 10_000);
});
