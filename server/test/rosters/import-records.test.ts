import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rosterImports, tenants } from '../../src/db/schema.js';
import { createTenantFixture, unique } from '../support/factories.js';
import {
  answerOf,
  csvOf,
  importOf,
  postCsv,
  type RosterServer,
  startRosterServer,
  students,
} from './import-helpers.js';

/** What is kept of an import: its Idempotency-Key's answer, its record (GET, in its tenant only), until its tenant goes. */
let h: RosterServer;
beforeAll(async () => {
  h = await startRosterServer();
});
afterAll(() => h?.close());

describe('Idempotency-Key', () => {
  const importsOf = async (tenantId: string) =>
    (await h.db.select({ n: count() }).from(rosterImports).where(eq(rosterImports.tenantId, tenantId)))[0]?.n;

  it('replays a CSV import for the same file, refuses another file or another query', async () => {
    const s = await createTenantFixture(h);
    const key = unique('key');
    const csv = csvOf('email,role', ...students(3, unique('idem')));
    const post = { token: s.owner.token, headers: { 'idempotency-key': key } };
    const first = await postCsv(h, s.tenantId, csv, post);
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    const again = await postCsv(h, s.tenantId, csv, post);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    expect(await importsOf(s.tenantId)).toBe(1);
    const other = await postCsv(h, s.tenantId, csvOf('email', `${unique('o')}@example.test`), post);
    expect((await answerOf(other)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const dry = await postCsv(h, s.tenantId, csv, { ...post, query: 'dryRun=true' });
    expect((await answerOf(dry)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await importsOf(s.tenantId)).toBe(1);
  });
});

describe('GET an import', () => {
  it("another tenant's import is not found", async () => {
    const a = await createTenantFixture(h);
    const b = await createTenantFixture(h);
    const posted = await answerOf(
      await postCsv(h, a.tenantId, csvOf('email', `${unique('g')}@example.test`), { token: a.owner.token }),
    );
    const { importId } = posted.body.data;
    expect((await importOf(h, a.tenantId, importId, a.owner.token)).status).toBe(200);
    const elsewhere = await importOf(h, b.tenantId, importId, b.owner.token);
    expect(elsewhere).toMatchObject({ status: 404, body: { error: { code: 'ROSTER_IMPORT_NOT_FOUND' } } });
  });

  it('imports go with their tenant when it is purged', async () => {
    const s = await createTenantFixture(h);
    expect(
      (await postCsv(h, s.tenantId, csvOf('email', `${unique('p')}@example.test`), { token: s.owner.token }))
        .status,
    ).toBe(200);
    await h.db.delete(tenants).where(eq(tenants.id, s.tenantId));
    const [left] = await h.db
      .select({ n: count() })
      .from(rosterImports)
      .where(eq(rosterImports.tenantId, s.tenantId));
    expect(left?.n).toBe(0);
  });
});
