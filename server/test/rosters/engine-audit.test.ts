import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { rowsOf } from '../../src/db/rows.js';
import { SYSTEM_AUDIT } from '../../src/modules/audit/audit-context.js';
import type { AuditEventInput } from '../../src/modules/audit/audit-events.repository.js';
import { recordAuditEvents } from '../../src/modules/audit/audit-events-batch.repository.js';
import { sdkAs } from '../support/audit-events.js';
import { addMember, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { createTestDatabase } from '../support/test-database.js';
import { rosterRow, rowsFor, runImport, storedEvents, storedMembers } from './engine-helpers.js';

/* The import's audit events and outbox rows, written in one statement; and the import's statements, as many whatever its size. */

let h: TestServer;
let statements = 0;
beforeAll(async () => {
  h = await startTestServer({ database: await createTestDatabase({ onQuery: () => void statements++ }) });
});
afterAll(async () => {
  await h?.close();
  await h?.database.close();
});

const address = () => `${unique('pupil')}@school.test`;

async function addEndpoint(db: Database, tenantId: string | null, events: string[]): Promise<string> {
  const id = randomUUID();
  await db.execute(sql`insert into webhook_endpoints (id, tenant_id, url, events, secret)
    values (${id}::uuid, ${tenantId}::uuid, 'https://93.184.215.14/hooks', ${`{${events.join(',')}}`}::text[], 'whsec_test')`);
  return id;
}

async function deliveries(db: Database, endpointId: string) {
  return rowsOf<{ sequence: number; action: string; position: number }>(
    await db.execute(sql`select e.sequence::int as sequence, e.action, d.position::float8 as position
      from webhook_deliveries d join audit_events e on e.id = d.audit_event_id
      where d.endpoint_id = ${endpointId}::uuid order by d.position`),
  );
}

describe("an import's events", () => {
  it('are numbered on from the tenant’s last, in row order then the removals, each as the API shows the membership', async () => {
    const t = await createTenantFixture(h);
    const sdk = sdkAs(h, t.owner);
    const changed = await addMember(h, t.tenantId, 'STUDENT');
    const removed = await addMember(h, t.tenantId, 'STUDENT');
    const everything = await addEndpoint(h.db, t.tenantId, ['*']);
    const createdOnly = await addEndpoint(h.db, t.tenantId, ['membership.created']);
    const platform = await addEndpoint(h.db, null, ['membership.removed', 'membership.role_changed']);
    const shownBefore = await sdk.memberships.get(t.tenantId, changed.membershipId);
    const last = (await storedEvents(h.db, t.tenantId)).at(-1)?.sequence ?? 0;

    const [first, second] = [address(), address()];
    const rows = [
      rosterRow(2, { email: first, role: 'TEACHER' }),
      rosterRow(3, { email: changed.actor.email, role: 'TEACHER' }),
      rosterRow(4, { email: second }),
      rosterRow(5, { email: t.owner.email }),
    ];
    await runImport(h.db, t.tenantId, rows, { caller: t.owner, mode: 'sync' });
    const events = (await storedEvents(h.db, t.tenantId)).filter((e) => e.sequence > last);
    expect(events.map((e) => [e.sequence, e.action])).toEqual([
      [last + 1, 'membership.created'],
      [last + 2, 'membership.role_changed'],
      [last + 3, 'membership.created'],
      [last + 4, 'membership.removed'],
    ]);
    const members = await storedMembers(h.db, t.tenantId);
    const created = await sdk.memberships.get(t.tenantId, members.get(first)?.id as string);
    const updated = await sdk.memberships.get(t.tenantId, changed.membershipId);
    expect(events[0]).toMatchObject({ target_id: created.tenantMembershipId, before: null, after: created });
    expect(events[1]).toMatchObject({ before: shownBefore, after: updated });
    expect(events[3]).toMatchObject({ target_id: removed.membershipId, after: null });

    const positions = (rows: { position: number }[]) => rows.map((r) => r.position);
    const all = await deliveries(h.db, everything);
    expect(all.map((d) => d.sequence)).toEqual([last + 1, last + 2, last + 3, last + 4]);
    expect(positions(all)).toEqual([...positions(all)].sort((a, b) => a - b));
    expect((await deliveries(h.db, createdOnly)).map((d) => d.sequence)).toEqual([last + 1, last + 3]);
    const platformSeen = (await deliveries(h.db, platform)).filter((d) => d.sequence > last);
    expect(platformSeen.map((d) => d.action)).toEqual(['membership.role_changed', 'membership.removed']);
    await h.db.execute(sql`update webhook_endpoints set enabled = false where id = ${platform}::uuid`);
  });

  it('recordAuditEvents numbers each scope on from its counter, consecutive, and writes nothing for none', async () => {
    const [a, b] = [await createTenantFixture(h), await createTenantFixture(h)];
    const lastOf = async (tenantId: string) => (await storedEvents(h.db, tenantId)).at(-1)?.sequence ?? 0;
    const [lastA, lastB] = [await lastOf(a.tenantId), await lastOf(b.tenantId)];
    const event = (tenantId: string, n: number): AuditEventInput => ({
      tenantId,
      action: 'membership.terms_changed',
      target: { type: 'membership', id: randomUUID() },
      before: { n },
      after: { n: n + 1 },
      context: SYSTEM_AUDIT,
    });
    await recordAuditEvents(h.db, []);
    await recordAuditEvents(h.db, [
      event(b.tenantId, 1),
      event(a.tenantId, 2),
      event(b.tenantId, 3),
      event(a.tenantId, 4),
    ]);
    const numbered = async (tenantId: string) =>
      (await storedEvents(h.db, tenantId)).slice(-2).map((e) => [e.sequence, e.before]);
    expect(await numbered(a.tenantId)).toEqual([
      [lastA + 1, { n: 2 }],
      [lastA + 2, { n: 4 }],
    ]);
    expect(await numbered(b.tenantId)).toEqual([
      [lastB + 1, { n: 1 }],
      [lastB + 2, { n: 3 }],
    ]);
    const [counter] = rowsOf<{ last: number }>(
      await h.db.execute(
        sql`select last::int as last from audit_sequences where scope = ${a.tenantId}::uuid`,
      ),
    );
    expect(counter?.last).toBe(lastA + 2);
  });
});

describe('set-based', () => {
  it('takes as many statements for 200 rows as for 2 (creates, updates and removals alike)', async () => {
    const countFor = async (size: number) => {
      const t = await createTenantFixture(h);
      const members = await Promise.all(
        Array.from({ length: size }, () => addMember(h, t.tenantId, 'STUDENT')),
      );
      const changed = members.slice(0, size / 2).map((m) => m.actor.email);
      const rows = [...changed, ...Array.from({ length: size }, address)];
      statements = 0;
      const plan = await runImport(h.db, t.tenantId, rowsFor(rows, { role: 'TEACHER' }), {
        caller: t.owner,
        mode: 'sync',
      });
      expect(plan.summary).toMatchObject({ create: size, updateRole: size / 2, remove: size / 2 });
      return statements;
    };
    const small = await countFor(2);
    expect(await countFor(200)).toBe(small);
    // The lock and the caller, two reads, users, memberships, updates, removals, events, and the
    // removed students' guardian links, pairing codes and pending guardian invitations (revoked with
    // them, docs/guardians.md).
    expect(small).toBeLessThanOrEqual(12);
  });
});
