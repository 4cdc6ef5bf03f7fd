import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError, tenantState } from '../support/memberships.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

describe('hostile bodies', () => {
  const post = (path: string, token: string, body?: string, headers: Record<string, string> = {}) =>
    fetch(`${h.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body,
    });

  it('suspend and reactivate without a body: 200; with unknown fields or a bad reason: 400, nothing changed', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const path = `/tenants/${t.tenantId}/memberships/${member.membershipId}`;
    const before = await tenantState(h.db, t.tenantId);
    for (const [route, body] of [
      ['suspend', '{"reason":""}'],
      ['suspend', '{"reason":"   "}'],
      ['suspend', `{"reason":"${'x'.repeat(501)}"}`],
      ['suspend', '{"reason":42}'],
      ['suspend', '{"reason":"a\\u0000b"}'],
      ['suspend', '{"why":"x"}'],
      ['suspend', '[]'],
      ['reactivate', '{"reason":"x"}'],
      ['reactivate', '[1]'],
    ] as const) {
      const res = await post(`${path}/${route}`, t.owner.token, body);
      expect(res.status, `${route} ${body}`).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
    const suspended = await post(`${path}/suspend`, t.owner.token);
    expect(suspended.status).toBe(200);
    expect(suspended.headers.get('etag')).toBe('"2"');
    const reactivated = await post(`${path}/reactivate`, t.owner.token);
    expect(reactivated.status).toBe(200);
    expect(((await reactivated.json()) as { data: { status: string } }).data.status).toBe('ACTIVE');
  });

  it('an Idempotency-Key: the same suspend again replays its answer; another body with it is 422', async () => {
    const t = await createTenantFixture(h);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    const path = `/tenants/${t.tenantId}/memberships/${member.membershipId}/suspend`;
    const key = { 'idempotency-key': `suspend-${member.membershipId}` };
    const first = await post(path, t.owner.token, '{"reason":"late"}', key);
    expect(first.status).toBe(200);
    const again = await post(path, t.owner.token, '{"reason":"late"}', key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const other = await post(path, t.owner.token, '{"reason":"other"}', key);
    expect(other.status).toBe(422);
  });

  it('bodies that are not a change: 400 VALIDATION_FAILED, nothing changed', async () => {
    const t = await createTenantFixture(h);
    const m = await addMember(h, t.tenantId, 'STUDENT');
    const before = await tenantState(h.db, t.tenantId);
    const bodies: [unknown, string[]][] = [
      [{}, ['body']],
      [{ suspendedAt: '2030-01-01T00:00:00Z' }, ['body']],
      [{ status: 'SUSPENDED' }, ['body']],
      [{ startsAt: '2024-02-30T00:00:00Z' }, ['body.startsAt']],
      [{ startsAt: '2024-01-01' }, ['body.startsAt']],
      [{ startsAt: 'tomorrow' }, ['body.startsAt']],
      [{ startsAt: 1735689600000 }, ['body.startsAt']],
      [{ endsAt: '0000-01-01T00:00:00Z' }, ['body.endsAt']],
      [{ endsAt: '1969-12-31T23:59:59Z' }, ['body.endsAt']],
      [{ endsAt: '+010000-01-01T00:00:00Z' }, ['body.endsAt']],
      [{ endsAt: '' }, ['body.endsAt']],
      [{ role: null }, ['body.role']],
    ];
    for (const [body, paths] of bodies) {
      const res = await fetch(`${h.baseUrl}/tenants/${t.tenantId}/memberships/${m.membershipId}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${t.owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = { status: res.status, body: await res.json(), headers: res.headers };
      expectError(answer, 400, 'VALIDATION_FAILED');
      const { details } = (answer.body as { error: { details: { path: string }[] } }).error;
      const found = details.map((d) => d.path);
      for (const path of paths) expect(found, JSON.stringify(body)).toContain(path);
    }
    expect(await tenantState(h.db, t.tenantId)).toEqual(before);
  });
});
