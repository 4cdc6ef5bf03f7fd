import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { MOST_PARAMETERS_PREPARED, preparingFixedTexts } from '../../src/db/prepared-texts.js';
import { listMembershipsAs } from '../../src/modules/memberships/membership-pages.repository.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';

// drizzle sends the statements it builds on the spot unnamed, and postgres.js runs an unnamed
// statement with parameters in two round trips (Describe, then Bind and Execute). The service's
// pools prepare them in transactions (db/prepared-texts.ts), and leave the reads outside them
// unprepared (member search needs a plan for its value): pg_prepared_statements, read on the pool's
// one connection, shows which texts the driver prepared there.

let database: BareDatabase;
beforeAll(async () => {
  database = await createBareDatabase();
});
afterAll(() => database?.drop());

const oneConnection = () => postgres(database.url, { max: 1, onnotice: () => {} });

async function preparedTexts(db: ReturnType<typeof drizzle>): Promise<string[]> {
  const rows = await db.execute<{ statement: string }>(sql`select statement from pg_prepared_statements`);
  return [...rows].map((row) => row.statement);
}

const many = Array.from({ length: MOST_PARAMETERS_PREPARED + 1 }, (_, i) => i);
const wide = sql`select ${sql.join(
  many.map((i) => sql`${i}::int`),
  sql`, `,
)} as wide`;

describe('unnamed statements on a pool of the service', () => {
  it('are prepared in transactions, unless they have no parameters or very many; not outside', async () => {
    const pool = oneConnection();
    const db = drizzle(preparingFixedTexts(pool));
    try {
      await db.execute(sql`select ${1}::int as outside`);
      await db.transaction(async (tx) => {
        await tx.execute(sql`select ${2}::int as inside`);
        await tx.transaction(async (nested) => {
          await nested.execute(sql`select ${3}::int as nested`);
        });
        await tx.execute(sql.raw('select 4 as no_parameters'));
        await tx.execute(wide);
      });
      const texts = await preparedTexts(db);
      expect(texts).toEqual(expect.arrayContaining(['select $1::int as inside', 'select $1::int as nested']));
      expect(texts).not.toContain('select $1::int as outside');
      expect(texts.some((text) => text.includes('no_parameters') || text.includes('as wide'))).toBe(false);
    } finally {
      await pool.end();
    }
  });

  it('are not prepared by the bare driver (what the wrapper changes)', async () => {
    const pool = oneConnection();
    const db = drizzle(pool);
    try {
      await db.transaction(async (tx) => {
        await tx.execute(sql`select ${2}::int as inside`);
      });
      expect(await preparedTexts(db)).not.toContain('select $1::int as inside');
    } finally {
      await pool.end();
    }
  });
});

describe('a page of members', () => {
  it('is prepared, but not when it searches: a search is planned for its pattern on every run', async () => {
    const handle = await openDatabase({ kind: 'postgres', url: database.url, poolSize: 1 });
    const tenantId = '00000000-0000-4000-8000-000000000001';
    try {
      // Past the fifth run, where PostgreSQL would move a prepared statement to its generic plan.
      for (let run = 0; run < 7; run++) {
        for (const q of [undefined, 'kowal'])
          expect(await listMembershipsAs(handle.db, 'nobody', { tenantId, q, limit: 21 })).toMatchObject({
            caller: undefined,
          });
      }
      const texts = await preparedTexts(handle.db as unknown as ReturnType<typeof drizzle>);
      const pages = texts.filter((text) => text.includes('"tenant_memberships"."tenant_id" ='));
      expect(pages).toHaveLength(1);
      expect(pages[0]).not.toContain('ilike');
    } finally {
      await handle.close();
    }
  });
});

// patches/postgres+3.4.9.patch, hunks 5 and 6: costs taken out of every statement, behaviour kept.
describe('the driver, patched for cost', () => {
  it('finds a text it prepared again, however the string that carries it was built', async () => {
    const pool = oneConnection();
    try {
      // A new string each time, with the same text: how drizzle hands over what it builds.
      const text = () => ['select $1::int', 'as', 'again'].join(' ');
      for (const value of [1, 2, 3])
        expect((await pool.unsafe(text(), [value], { prepare: true }))[0]).toEqual({ again: value });
      const rows = await pool<{ statement: string }[]>`
        select statement from pg_prepared_statements where statement = ${text()}`;
      expect(rows).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it("keeps a result's count, command and columns, out of its keys and its JSON", async () => {
    const pool = oneConnection();
    try {
      const result = await pool`select 1 as one union all select 2`;
      expect([result.count, result.command, result.columns.map((column) => column.name)]).toEqual([
        2,
        'SELECT',
        ['one'],
      ]);
      expect(Object.keys(result)).toEqual(['0', '1']);
      expect(JSON.stringify(result)).toBe('[{"one":1},{"one":2}]');
      expect(result.map((row) => row.one)).toEqual([1, 2]);
      expect(Array.isArray(result.map((row) => row))).toBe(true);
    } finally {
      await pool.end();
    }
  });
});
