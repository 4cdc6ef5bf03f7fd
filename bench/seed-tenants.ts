import type { Sql } from './sql.js';

/**
 * A UUIDv7 made in SQL: the millisecond timestamp in the first 48 bits, the version, then a tag
 * (which kind of row) and the row number where the random bits would be. Deterministic, so that a
 * row's id is recomputed rather than joined; one millisecond per row, so that ordering by id is
 * creation order, as with the ids the service makes. (md5-based random bits cost 5x the seed time.)
 */
export const v7 = (ms: string, tag: string, n: string) =>
  `(lpad(to_hex(${ms}), 12, '0') || '7${tag}8' || lpad(to_hex(${n}), 15, '0'))::uuid`;

/** The role of a tenant's i-th member: the first is its OWNER, then 2 % ADMINs and 8 % TEACHERs. */
export const roleOf = (i: string) =>
  `(case when ${i} = 1 then 'OWNER' when ${i} % 50 = 0 then 'ADMIN' when ${i} % 10 = 0 then 'TEACHER'
    else 'STUDENT' end)::membership_role`;

/**
 * Five members per tenant whose names a school admin would search for, spread over the tenant
 * (at 10 %, 30 %, ... 90 % of it), so that a search neither finds them all in the first rows nor
 * needs only the last ones. The fifth was invited by email and has not signed in: no name of its
 * own, only the one the tenant gave, which the search and the answer must use.
 */
export const SEARCH = {
  q: 'kowal',
  names: ['Ada Kowalczyk', 'Piotr Kowalski', 'Ewa Kowalewska', 'Jan KOWAL'],
};
const INVITED_NAME = 'Marta Kowalczyk';
export const searchRows = (size: number) =>
  [1, 3, 5, 7, 9].map((tenth) => Math.floor((size * tenth) / 10) + 3);

/**
 * Gives the searchable names to five members of a tenant. `userOf` and `membershipOf` make the ids
 * of its i-th user and membership.
 */
export async function nameSearchable(
  sql: Sql,
  size: number,
  userOf: (i: string) => string,
  membershipOf: (i: string) => string,
): Promise<void> {
  const rows = searchRows(size);
  const invited = rows.at(-1) as number;
  for (const [k, name] of SEARCH.names.entries())
    await sql.query(`update users set display_name = $1 where id = ${userOf(String(rows[k]))}`, [name]);
  await sql.query(`update users set display_name = null where id = ${userOf(String(invited))}`);
  await sql.query(
    `update tenant_memberships set invited_display_name = $1 where id = ${membershipOf(String(invited))}`,
    [INVITED_NAME],
  );
}

export type SweepTenant = { size: number; tenantId: string; ownerSubject: string };

/**
 * A tenant of `size` memberships with users of its own, for the size sweep of the filtered pages:
 * the same role mix and searchable names as the big tenant, only smaller. `k` (0 to 9) tells the
 * sweep tenants' ids and subjects apart; `ms` is where their timestamps start.
 */
export async function seedSweepTenant(sql: Sql, k: number, size: number, ms: string): Promise<SweepTenant> {
  const tenant = v7(`${ms} + ${k}`, 'b02', String(k));
  const user = (i: string) => v7(`${ms} + ${i}`, `a1${k}`, i);
  const membership = (i: string) => v7(`${ms} + ${i}`, `c1${k}`, i);
  await sql.query(
    `insert into users (id, subject, email, email_canonical, display_name)
     select ${user('i')}, 'bench-s${k}-u-' || i, 's${k}-u' || i || '@bench.test', 's${k}-u' || i || '@bench.test',
       'Bench user ' || i
     from generate_series(1, ${size}) i`,
  );
  await sql.query(`insert into tenants (id, slug, name) values (${tenant}, $1, $2)`, [
    `bench-sweep-${size}`,
    `Bench tenant of ${size} members`,
  ]);
  await sql.query(
    `insert into tenant_memberships (id, tenant_id, user_id, role)
     select ${membership('i')}, ${tenant}, ${user('i')}, ${roleOf('i')}
     from generate_series(1, ${size}) i`,
  );
  await nameSearchable(sql, size, user, membership);
  const [row] = await sql.query<{ id: string }>(`select ${tenant} as id`);
  if (!row) throw new Error('no sweep tenant');
  return { size, tenantId: row.id, ownerSubject: `bench-s${k}-u-1` };
}
