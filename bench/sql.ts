import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';

type ServiceClientModule = typeof import('../server/src/db/client.js');

/** The service's own database module, as built: its migrations, and PGlite with its extensions. */
export const serviceDatabase = (await import(
  new URL('../server/dist/db/client.js', import.meta.url).href
)) as ServiceClientModule;

export type Row = Record<string, unknown>;

/** The little the bench needs from a database, on postgres.js or on PGlite. */
export type Sql = {
  /** `prepare: false`: planned for its parameters every time (postgres.js; PGlite never prepares). */
  query<T extends Row = Row>(text: string, params?: unknown[], options?: { prepare?: boolean }): Promise<T[]>;
  /**
   * The statements in one transaction, sent at once: BEGIN, each of them, COMMIT. On postgres.js
   * they are pipelined on a reserved connection, one round trip (the server still starts each only
   * once the one before it is done); a statement that fails makes the COMMIT a ROLLBACK, and the
   * failure is thrown. Each statement's rows, in order.
   */
  inOneTrip(statements: [text: string, params: unknown[]][]): Promise<Row[][]>;
  close(): Promise<void>;
};

export type SqlOptions = {
  max?: number;
  /** Named server-side statements (postgres.js's default for its own queries; the service prepares its hot queries too). */
  prepare?: boolean;
};

type Client = postgres.Sql | postgres.ReservedSql;
type Params = postgres.ParameterOrJSON<never>[];

export function postgresSql(url: string, options: SqlOptions = {}): Sql {
  const prepare = options.prepare ?? true;
  const client = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    prepare,
  });
  const queryOn =
    (c: Client) =>
    async <T extends Row>(text: string, params: unknown[] = [], options: { prepare?: boolean } = {}) =>
      (await c.unsafe(text, params as Params, {
        prepare: prepare && options.prepare !== false,
      })) as unknown as T[];
  return {
    query: queryOn(client),
    inOneTrip: async (statements) => {
      const reserved = await client.reserve();
      const on = queryOn(reserved);
      try {
        // Each query is handed to the connection in the order made, and written with the others.
        const sent = [on('begin'), ...statements.map(([text, params]) => on(text, params)), on('commit')];
        const settled = await Promise.allSettled(sent);
        const failed = settled.find((outcome) => outcome.status === 'rejected');
        if (failed) {
          await on('rollback').catch(() => {});
          throw failed.reason;
        }
        return settled.slice(1, -1).map((outcome) => (outcome as PromiseFulfilledResult<Row[]>).value);
      } finally {
        reserved.release();
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** PGlite opened (and migrated, and locked) the way the service opens it. */
export async function pgliteSql(dataDir: string): Promise<Sql> {
  const handle = await serviceDatabase.openDatabase({ kind: 'pglite', dataDir });
  const db = (handle.db as unknown as { $client: PGlite }).$client;
  type Queryable = Pick<PGlite, 'query'>;
  const queryOn =
    (c: Queryable) =>
    async <T extends Row>(text: string, params: unknown[] = []): Promise<T[]> =>
      (await c.query<T>(text, params)).rows;
  return {
    query: queryOn(db),
    inOneTrip: (statements) =>
      db.transaction(async (tx) => {
        const rows: Row[][] = [];
        for (const [text, params] of statements) rows.push(await queryOn(tx)(text, params));
        return rows;
      }),
    close: () => handle.close(),
  };
}
