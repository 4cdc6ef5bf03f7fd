import * as drizzle from 'drizzle-orm';
import { asc, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedPer } from '../../src/db/prepared.js';
import { rowMapperOf } from '../../src/db/row-mapper.js';
import { tenantMemberships, tenants, users } from '../../src/db/schema/people.js';
import { createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

// The service's prepared statements map their rows with db/row-mapper.ts, not with drizzle's
// mapResultRow: the same objects must come out, joins that matched nothing included.

/** drizzle's own row mapping: exported by the package, left out of its types. */
const { mapResultRow } = drizzle as unknown as {
  mapResultRow(fields: unknown, row: unknown[], joins: Record<string, boolean> | undefined): unknown;
};

type Prepared = {
  fields: { path: string[]; field: unknown }[];
  joinsNotNullableMap?: Record<string, boolean>;
  execute(values?: Record<string, unknown>): Promise<unknown[]>;
};

let h: TestServer;
let tenantId: string;

beforeAll(async () => {
  h = await startTestServer();
  ({ tenantId } = await createTenantFixture(h));
});
afterAll(() => h.close());

// Every user, with the tenant's membership when there is one (a left join that often matches
// nothing), a nested object of columns and of SQL, and values decoded (timestamps, numbers).
const usersWithMemberships = preparedPer((db) =>
  db
    .select({
      id: users.id,
      createdAt: users.createdAt,
      membership: { role: tenantMemberships.role, startsAt: tenantMemberships.startsAt },
      tenant: { slug: tenants.slug, name: tenants.name },
      seats:
        sql<number>`(select count(*) from tenant_memberships where tenant_id = ${sql.placeholder('tenantId')})`.mapWith(
          Number,
        ),
      nothing: sql<null>`null`,
    })
    .from(users)
    .leftJoin(
      tenantMemberships,
      sql`${tenantMemberships.userId} = ${users.id} and ${tenantMemberships.tenantId} = ${sql.placeholder('tenantId')}`,
    )
    .leftJoin(tenants, eq(tenants.id, tenantMemberships.tenantId))
    .orderBy(asc(users.id))
    .prepare('test_users_with_memberships'),
);

describe('row mapper', () => {
  it('maps a statement of the service as drizzle does, joins that matched nothing as null', async () => {
    await createTenantFixture(h);
    const query = usersWithMemberships(h.db) as unknown as Prepared;
    const mapped = await query.execute({ tenantId });
    expect(mapped.length).toBeGreaterThanOrEqual(2);

    // The same rows, raw, through drizzle's own mapping.
    const raw = (await h.db.execute(
      sql.raw(
        (query as unknown as { queryString: string }).queryString.replace(/\$\d+/g, `'${tenantId}'::uuid`),
      ),
    )) as unknown as Record<string, unknown>[] | { rows: Record<string, unknown>[] };
    const rows = (Array.isArray(raw) ? raw : raw.rows).map((row) => Object.values(row));
    const theirs = rows.map((row) => mapResultRow(query.fields, row, query.joinsNotNullableMap));
    expect(mapped).toEqual(theirs);

    const matched = mapped.filter((row) => (row as { membership: unknown }).membership !== null);
    const unmatched = mapped.filter((row) => (row as { membership: unknown }).membership === null);
    expect(matched).toHaveLength(1);
    expect(unmatched.length).toBeGreaterThanOrEqual(1);
    expect((unmatched[0] as { tenant: unknown }).tenant).toBeNull();
    expect((matched[0] as { createdAt: unknown }).createdAt).toBeInstanceOf(Date);
    expect(typeof (matched[0] as { seats: unknown }).seats).toBe('number');
  });

  it("decodes an aliased table's columns (a CTE's: proxies of the table's) as drizzle does", () => {
    const u = alias(users, 'u');
    const fields = [
      { path: ['createdAt'], field: u.createdAt },
      { path: ['user', 'email'], field: u.email },
    ];
    const row = ['2026-12-06 08:00:00.123+00', 'a@example.test'];
    const ours = rowMapperOf(fields, undefined)([row]);
    expect(ours).toEqual([mapResultRow(fields, row, undefined)]);
    expect((ours[0] as { createdAt: Date }).createdAt.toISOString()).toBe('2026-12-06T08:00:00.123Z');
  });

  it('keeps an inner-joined object whose first column is null', () => {
    const fields = [
      { path: ['user', 'displayName'], field: users.displayName },
      { path: ['user', 'email'], field: users.email },
    ];
    const map = rowMapperOf(fields, { users: true });
    const theirs = mapResultRow(fields, [null, 'a@example.test'], { users: true });
    expect(map([[null, 'a@example.test']])).toEqual([theirs]);
    expect(theirs).toEqual({ user: { displayName: null, email: 'a@example.test' } });
  });
});
