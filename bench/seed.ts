import { nameSearchable, roleOf, type SweepTenant, seedSweepTenant, v7 } from './seed-tenants.js';
import type { Sql } from './sql.js';

export type SeedSize = {
  /** Memberships of the big tenant (one user each). */
  memberships: number;
  /** Other tenants, ten memberships each. */
  tenants: number;
  /** Users in no tenant, for POST then DELETE. */
  pool: number;
  /** Sizes of the smaller tenants (own users each) that the filtered pages are also measured at. */
  sweep?: number[];
};

export type Seeded = {
  tenantId: string;
  /** The big tenant's OWNER (membership routes) and a user of a few tenants (GET /me). */
  ownerSubject: string;
  meSubject: string;
  /** Memberships spread over the big tenant, for GET one. */
  getIds: string[];
  /** The id of the row the deep page follows, and its row number. */
  deepAfterId: string;
  deepAfterRow: number;
  poolUserIds: string[];
  /** The smaller tenants of the size sweep, smallest first. */
  sweep: SweepTenant[];
  rows: { users: number; tenants: number; memberships: number };
};

const DAY_MS = 86_400_000;

async function step(label: string, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  console.warn(`  seed: ${label} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

/** Set-based: one INSERT ... SELECT FROM generate_series per table, never row by row. */
export async function seed(sql: Sql, size: SeedSize, kind: 'postgres' | 'pglite'): Promise<Seeded> {
  const { memberships: n, tenants: t, pool: p, sweep = [] } = size;
  if (n < 1000) throw new Error('the big tenant needs at least 1000 memberships');
  // Forty days ago, so that every id the service makes during the run sorts after the seeded ones.
  const base = String(Date.now() - 40 * DAY_MS);
  const tenant = (i: string) => v7(`${base} + ${i}`, 'b01', i);
  const bigTenant = tenant('0');
  const user = (i: string) => v7(`${base} + ${i}`, 'a01', i);
  const poolUser = (j: string) => v7(`${base} + ${n} + ${j}`, 'a02', j);
  const bigMembership = (i: string) => v7(`${base} + ${i}`, 'c01', i);

  // The data is consistent by construction: no per-row foreign-key checks while loading (the
  // constraints go, and come back validated once), and the secondary indexes are built once at the
  // end rather than row by row. The schema's own triggers still fire (a replication role that
  // skipped the foreign-key checks would skip them too): what they keep must be right.
  await sql.query(`set maintenance_work_mem = '${kind === 'postgres' ? '256MB' : '64MB'}'`);
  const indexes = await secondaryIndexes(sql);
  const foreignKeys = await foreignKeysOf(sql);
  for (const index of [...foreignKeys, ...indexes]) await sql.query(index.drop);
  await step(`${n + p} users`, () =>
    sql.query(
      `insert into users (id, subject, email, email_canonical, display_name)
       select ${user('i')}, 'bench-u-' || i, 'u' || i || '@bench.test', 'u' || i || '@bench.test', 'Bench user ' || i
       from generate_series(1, ${n}) i
       union all
       select ${poolUser('j')}, null, 'pool-' || j || '@bench.test', 'pool-' || j || '@bench.test', 'Pool user ' || j
       from generate_series(1, ${p}) j`,
    ),
  );
  await step(`${t + 1} tenants`, () =>
    sql.query(
      `insert into tenants (id, slug, name)
       select ${tenant('i')}, 'bench-' || i, 'Bench tenant ' || i
       from generate_series(0, ${t}) i`,
    ),
  );
  await step(`${n} memberships of the big tenant`, () =>
    sql.query(
      `insert into tenant_memberships (id, tenant_id, user_id, role)
       select ${bigMembership('i')}, ${bigTenant}, ${user('i')}, ${roleOf('i')}
       from generate_series(1, ${n}) i`,
    ),
  );
  await nameSearchable(sql, n, user, bigMembership);
  const sweepTenants: SweepTenant[] = [];
  // Past every other seeded timestamp, so that no id repeats one of the big tenant's.
  const sweepBase = `${base} + ${n + p + t * 10 + 100}`;
  for (const [k, s] of [...sweep].sort((a, b) => a - b).entries())
    await step(`a tenant of ${s} memberships for the size sweep`, async () => {
      sweepTenants.push(await seedSweepTenant(sql, k, s, `${sweepBase} + ${k * 1_000_000}`));
    });
  await step(`${t * 10 + 4} memberships of the other tenants`, () =>
    sql.query(
      `insert into tenant_memberships (id, tenant_id, user_id, role)
       select ${v7(`${base} + ${n} + (i - 1) * 10 + k + 1`, 'c02', '(i - 1) * 10 + k')},
         ${tenant('i')}, ${user(`(3 + ((i - 1) * 10 + k) % (${n} - 2))`)},
         (case k when 0 then 'OWNER' when 1 then 'ADMIN' else 'STUDENT' end)::membership_role
       from generate_series(1, ${t}) i, generate_series(0, 9) k
       union all
       select ${v7(`${base} + ${n + t * 10} + i`, 'c03', 'i')}, ${tenant('i')},
         ${user('2')}, 'TEACHER'
       from generate_series(1, ${Math.min(4, t)}) i`,
    ),
  );
  await step(`${indexes.length} secondary indexes and unique constraints`, async () => {
    for (const index of indexes) await sql.query(index.create);
  });
  await step(`${foreignKeys.length} foreign keys, validated`, async () => {
    for (const key of foreignKeys) await sql.query(key.create);
  });
  await step('vacuum analyze', async () => {
    for (const table of ['users', 'tenants', 'tenant_memberships'])
      await sql.query(`vacuum analyze ${table}`);
  });

  const deepAfterRow = Math.floor(n * 0.9);
  const ids = async (text: string) => (await sql.query<{ id: string }>(text)).map((row) => row.id);
  const [tenantId] = await ids(`select ${bigTenant} as id`);
  const [deepAfterId] = await ids(
    `select id from tenant_memberships where id = ${bigMembership(String(deepAfterRow))}`,
  );
  if (!tenantId || !deepAfterId) throw new Error('the seed did not make the rows it should have');
  const [counts] = await sql.query<{ users: number; tenants: number; memberships: number }>(
    `select (select count(*)::int from users) as users, (select count(*)::int from tenants) as tenants,
       (select count(*)::int from tenant_memberships) as memberships`,
  );
  return {
    tenantId,
    ownerSubject: 'bench-u-1',
    meSubject: 'bench-u-2',
    getIds: await ids(
      `select ${bigMembership('i')} as id from generate_series(1, ${n}, ${Math.floor(n / 1000)}) i`,
    ),
    deepAfterId,
    deepAfterRow,
    poolUserIds: await ids(`select ${poolUser('j')} as id from generate_series(1, ${p}) j`),
    sweep: sweepTenants,
    rows: counts ?? { users: 0, tenants: 0, memberships: 0 },
  };
}

type Rebuild = { name: string; drop: string; create: string };

/**
 * The secondary indexes and unique constraints, as the migrations made them (not the primary keys,
 * which time-ordered ids fill by appending): dropped before the load and rebuilt once after it.
 */
async function secondaryIndexes(sql: Sql): Promise<Rebuild[]> {
  return sql.query<Rebuild>(
    `select i.indexrelid::regclass::text as name,
       case when c.conname is null then 'drop index ' || quote_ident(i.indexrelid::regclass::text)
         else format('alter table %s drop constraint %I', i.indrelid::regclass, c.conname) end as drop,
       case when c.conname is null then pg_get_indexdef(i.indexrelid)
         else format('alter table %s add constraint %I %s', i.indrelid::regclass, c.conname,
           pg_get_constraintdef(c.oid)) end as create
     from pg_index i left join pg_constraint c on c.conindid = i.indexrelid and c.contype = 'u'
     where i.indrelid in ('users'::regclass, 'tenant_memberships'::regclass) and not i.indisprimary
       and (c.oid is not null or not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid))
     order by 1`,
  );
}

/** The foreign keys of the tables the seed fills, as the migrations made them. */
async function foreignKeysOf(sql: Sql): Promise<Rebuild[]> {
  return sql.query<Rebuild>(
    `select c.conname as name, format('alter table %s drop constraint %I', c.conrelid::regclass, c.conname) as drop,
       format('alter table %s add constraint %I %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) as create
     from pg_constraint c
     where c.contype = 'f' and c.conrelid in ('users'::regclass, 'tenants'::regclass, 'tenant_memberships'::regclass)
     order by 1`,
  );
}

/** Memberships left by POST+DELETE sequences that the end of a run cut between the two. */
export async function removePoolMemberships(sql: Sql, tenantId: string): Promise<number> {
  const rows = await sql.query(
    `delete from tenant_memberships where tenant_id = $1
       and user_id in (select id from users where subject is null and email like 'pool-%@bench.test')
     returning id`,
    [tenantId],
  );
  return rows.length;
}

/**
 * The tables POST then DELETE writes, vacuumed after it: its inserts wait in the trigram index's
 * pending list (a GIN index takes new entries unsorted, and every search reads them until VACUUM
 * merges them), which halved the search page measured after the write. The next pass, and the
 * size sweep, start from a settled database.
 */
export async function vacuumAfterWrites(sql: Sql): Promise<void> {
  await sql.query('vacuum (analyze) tenant_memberships, audit_events, audit_sequences, webhook_deliveries');
}
