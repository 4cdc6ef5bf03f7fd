import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModule } from 'libpg-query';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scopeViolations } from '../sql-scope/analyse.js';
import { checkStatements, describeOffenders, readCaptured, type Statement } from '../sql-scope/check.js';
import { schemaTables } from '../sql-scope/scoped-tables.js';

const tables = schemaTables();
const violations = (sql: string) => scopeViolations(sql, tables);
const statement = (sql: string): Statement => ({
  sql,
  databases: new Set(['pglite']),
  tests: new Set(['test/example.test.ts']),
  origins: new Set(),
  senders: new Set(),
});

beforeAll(() => loadModule());

describe('the tenant-scoped tables, from the drizzle schema', () => {
  test('a tenant_id column makes a table scoped; tenants is keyed by its id; users are shared', () => {
    expect(tables.get('tenant_memberships')?.tenantColumn).toBe('tenant_id');
    expect(tables.get('audit_events')?.tenantColumn).toBe('tenant_id');
    expect(tables.get('tenants')?.tenantColumn).toBe('id');
    expect(tables.get('users')?.tenantColumn).toBeUndefined();
    expect(tables.get('webhook_deliveries')?.tenantColumn).toBeUndefined();
  });
});

describe('one statement', () => {
  test('filtered by tenant_id = a parameter, a constant, or one IN item: one tenant', () => {
    expect(violations('select id from tenant_memberships where tenant_id = $1 and id = $2')).toEqual([]);
    expect(
      violations(`select id from invitations where tenant_id = '0190e7a0-0000-7000-8000-000000000000'`),
    ).toEqual([]);
    expect(violations('select id from tenant_memberships where tenant_id in ($1::uuid)')).toEqual([]);
  });

  test('by id alone, by ANY, by an IN of several or behind an OR: not one tenant', () => {
    for (const sql of [
      'select id from tenant_memberships where id = $1',
      'select id from tenant_memberships where tenant_id = any($1)',
      'select id from tenant_memberships where tenant_id in ($1, $2)',
      'select id from tenant_memberships where tenant_id = $1 or tenant_id is null',
    ]) {
      expect(violations(sql), sql).toEqual([
        'statement: tenant_memberships is not filtered by tenant_id = one value',
      ]);
    }
  });

  test('a join on tenant_id to a filtered table counts; a join on anything else does not', () => {
    const joined = 'select m.id from tenant_memberships m join invitations i on i.tenant_id = m.tenant_id';
    expect(violations(`${joined} where m.tenant_id = $1`)).toEqual([]);
    expect(violations(`${joined} where i.id = $1`)).toEqual([
      'statement: tenant_memberships as m is not filtered by tenant_id = one value',
      'statement: invitations as i is not filtered by tenant_id = one value',
    ]);
    const byId =
      'select m.id from tenant_memberships m join invitations i on i.id = m.id where m.tenant_id = $1';
    expect(violations(byId)).toEqual([
      'statement: invitations as i is not filtered by tenant_id = one value',
    ]);
  });

  test("a LEFT JOIN's ON filters its right side only", () => {
    const sql = 'select u.id from users u left join tenants t on t.id = $1 left join tenant_memberships m';
    expect(violations(`${sql} on m.tenant_id = t.id and m.user_id = u.id where u.subject = $2`)).toEqual([]);
    const preserved =
      'select m.id from tenant_memberships m left join tenants t on t.id = $1 and m.tenant_id = $1';
    expect(violations(preserved)).toEqual([
      'statement: tenant_memberships as m is not filtered by tenant_id = one value',
    ]);
  });

  test('a subquery may lean on its outer query, and a CTE passes its tenant column on', () => {
    const correlated =
      'select id from tenants t where t.id = $1 and exists (select 1 from tenant_memberships m where m.tenant_id = t.id)';
    expect(violations(correlated)).toEqual([]);
    const throughCte =
      'with target as (select tenant_id, id from tenant_memberships where tenant_id = $1 and id = $2) ' +
      'select i.id from invitations i join target on i.tenant_id = target.tenant_id';
    expect(violations(throughCte)).toEqual([]);
    const lateral =
      'select t.id, x.n from tenants t, lateral (select count(*) as n from invitations i where i.tenant_id = t.id) x';
    expect(violations(`${lateral} where t.id = $1`)).toEqual([]);
    expect(violations(lateral)).toEqual([
      'statement › lateral x: invitations as i is not filtered by tenant_id = one value',
      'statement: tenants as t is not filtered by id = one value',
    ]);
  });

  test('an INSERT writes tenant_id; an UPDATE or upsert never moves a row to another tenant', () => {
    expect(violations('insert into invitations (id, tenant_id, email) values ($1, $2, $3)')).toEqual([]);
    expect(violations('insert into invitations (id, email) values ($1, $2)')).toEqual([
      'statement: INSERT into invitations without tenant_id',
    ]);
    expect(violations('update invitations set tenant_id = $1 where tenant_id = $2 and id = $3')).toEqual([
      'statement: changes invitations.tenant_id',
    ]);
    const upsert =
      'insert into roster_imports (id, tenant_id) values ($1, $2) on conflict (id) do update set';
    expect(violations(`${upsert} tenant_id = excluded.tenant_id`)).toEqual([
      'statement: changes roster_imports.tenant_id',
    ]);
  });

  test("an INSERT's RETURNING carries the tenant it wrote into the statement around it", () => {
    const sql =
      'with added as (insert into invitations (id, tenant_id) values ($1, $2) returning tenant_id, id) ' +
      'update tenants set version = version + 1 from added where tenants.id = added.tenant_id';
    expect(violations(sql)).toEqual([]);
  });

  test('statements on tables without tenant_id are not its business', () => {
    expect(violations('select id from users where subject = $1')).toEqual([]);
    expect(violations('update webhook_deliveries set status = $1 where id = $2')).toEqual([]);
  });
});

describe('the check of a run', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sql-scope-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('reads what the workers wrote, each text once with every test and database that sent it', () => {
    const lines = [
      { kind: 'open', database: 'pglite' },
      { kind: 'statement', database: 'pglite', sql: 'select 1', test: 'test/a.test.ts' },
      {
        kind: 'statement',
        database: 'postgres',
        sql: 'select 1',
        test: 'test/b.test.ts',
        origin: 'src/x.ts:3',
        sentBy: 'listThings',
      },
    ];
    writeFileSync(join(dir, '1.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const { statements, opened } = readCaptured(dir);
    expect(opened).toBe(1);
    expect(statements).toEqual([
      {
        sql: 'select 1',
        databases: new Set(['pglite', 'postgres']),
        tests: new Set(['test/a.test.ts', 'test/b.test.ts']),
        origins: new Set(['src/x.ts:3']),
        senders: new Set(['listThings']),
      },
    ]);
  });

  test('passes the scoped, lists the allow-listed by reason, and names every offender', async () => {
    const good = statement('select id from tenant_memberships where tenant_id = $1');
    const missing = statement('select id from tenant_memberships where user_id = $1');
    const listed = statement('select id from tenants where deleted_at < $1');
    const broken = statement('select from where');
    // Another constant, another layout, the same statement: the fingerprint matches it.
    const allowList = [
      {
        reason: 'maintenance' as const,
        source: 'src/x.ts:1',
        sql: "select id\n from tenants where deleted_at < '2020-01-01'",
      },
    ];
    const outcome = await checkStatements([good, missing, listed, broken], allowList, tables);
    expect([...outcome.allowed]).toEqual([[allowList[0], [listed]]]);
    expect(outcome.offenders.map((offender) => offender.statement)).toEqual([missing, broken]);
    expect(outcome.offenders[1]?.violations[0]).toMatch(/^does not parse: syntax error/);
    const report = describeOffenders(outcome.offenders);
    expect(report).toContain('1. select id from tenant_memberships where user_id = $1');
    expect(report).toContain('tenant_memberships is not filtered by tenant_id = one value');
    expect(report).toContain('in tests: test/example.test.ts (pglite)');
  });

  test('a family allows what its function sends with any filters, and nothing another function sends', async () => {
    const sent = (sql: string, origin: string, sender: string): Statement => ({
      ...statement(sql),
      origins: new Set([origin]),
      senders: new Set([sender]),
    });
    const filtered = sent(
      'select id from tenants where name = $1 and deleted_at < $2',
      'src/x.ts:9',
      'listAll',
    );
    const elsewhere = sent('select id from tenants where name = $1', 'src/y.ts:9', 'listAll');
    const otherFunction = sent('select id from tenants where slug = $1', 'src/x.ts:20', 'findOne');
    const family = {
      reason: 'platform' as const,
      source: 'src/x.ts:5',
      sql: 'select id from tenants',
      sentBy: 'listAll',
    };
    const outcome = await checkStatements([filtered, elsewhere, otherFunction], [family], tables);
    expect([...outcome.allowed]).toEqual([[family, [filtered]]]);
    expect(outcome.offenders.map((offender) => offender.statement)).toEqual([elsewhere, otherFunction]);
  });
});
