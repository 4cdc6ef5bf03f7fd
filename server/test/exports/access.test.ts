import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenants } from '../../src/db/schema.js';
import { addMember, createActor, createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { missingId } from '../support/memberships.js';
import { type Download, download, EXPORT_COLUMNS } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** A refusal is the usual JSON envelope, whatever format was asked for. */
function expectRefused(res: Download, status: number, code: string) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('content-disposition')).toBeNull();
  const body = JSON.parse(res.text);
  expect({ status: res.status, success: body.success, code: body.error?.code }).toEqual({
    status,
    success: false,
    code,
  });
  return body;
}

const isDownload = (res: Download) =>
  res.status === 200 && res.text.startsWith(`\uFEFF${EXPORT_COLUMNS.join(',')}\n`);

describe('who may export', () => {
  it('the OWNER and an ADMIN; a TEACHER or a STUDENT is refused INSUFFICIENT_ROLE', async () => {
    const t = await createTenantFixture(h);
    const admin = await addMember(h, t.tenantId, 'ADMIN');
    expect(isDownload(await download(h, t.owner.token, t.tenantId))).toBe(true);
    expect(isDownload(await download(h, admin.actor.token, t.tenantId))).toBe(true);
    for (const role of ['TEACHER', 'STUDENT'] as const) {
      const member = await addMember(h, t.tenantId, role);
      expectRefused(await download(h, member.actor.token, t.tenantId), 403, 'INSUFFICIENT_ROLE');
      expectRefused(
        await download(h, member.actor.token, t.tenantId, { format: 'ndjson' }),
        403,
        'INSUFFICIENT_ROLE',
      );
    }
  });

  it('a non-member: TENANT_ACCESS_DENIED alike for an existing and a missing tenant', async () => {
    const t = await createTenantFixture(h);
    const stranger = (await createTenantFixture(h)).owner;
    const existing = expectRefused(
      await download(h, stranger.token, t.tenantId),
      403,
      'TENANT_ACCESS_DENIED',
    );
    const missing = expectRefused(
      await download(h, stranger.token, missingId()),
      403,
      'TENANT_ACCESS_DENIED',
    );
    const { requestId: _a, ...a } = existing.error;
    const { requestId: _b, ...b } = missing.error;
    expect(a).toEqual(b);
  });

  it('a super administrator: any tenant; TENANT_NOT_FOUND for a missing or deleted one', async () => {
    const t = await createTenantFixture(h);
    const root = await createSuperAdmin(h);
    expect(isDownload(await download(h, root.token, t.tenantId))).toBe(true);
    expectRefused(await download(h, root.token, missingId()), 404, 'TENANT_NOT_FOUND');
    await h.db.update(tenants).set({ deletedAt: sql`now()` }).where(eq(tenants.id, t.tenantId));
    expectRefused(await download(h, root.token, t.tenantId), 404, 'TENANT_NOT_FOUND');
    expectRefused(await download(h, t.owner.token, t.tenantId), 403, 'TENANT_ACCESS_DENIED');
  });

  it('no token: 401; a token of a user seen for the first time is identified, then refused', async () => {
    const t = await createTenantFixture(h);
    expectRefused(await download(h, undefined, t.tenantId), 401, 'UNAUTHENTICATED');
    const newcomer = await h.token(`new-${missingId()}`);
    expectRefused(await download(h, newcomer, t.tenantId), 403, 'TENANT_ACCESS_DENIED');
  });
});

describe('invalid input', () => {
  it('is answered after access: 400 to the OWNER, the refusal to others', async () => {
    const t = await createTenantFixture(h);
    const stranger = await createActor(h);
    const bad = { format: 'xlsx' } as unknown as Parameters<typeof download>[3];
    expectRefused(await download(h, t.owner.token, t.tenantId, bad), 400, 'VALIDATION_FAILED');
    expectRefused(await download(h, stranger.token, t.tenantId, bad), 403, 'TENANT_ACCESS_DENIED');
    expectRefused(
      await download(h, t.owner.token, t.tenantId, { status: 'SLEEPING' }),
      400,
      'VALIDATION_FAILED',
    );
    expectRefused(await download(h, t.owner.token, 'not-a-uuid'), 400, 'VALIDATION_FAILED');
  });
});
