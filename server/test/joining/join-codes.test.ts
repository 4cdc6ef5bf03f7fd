import { JoinCodeSchema, MembershipSchema } from '@tms/contract';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinCodes, tenantMemberships, tenants } from '../../src/db/schema.js';
import { createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { codeOf, schoolOf, stranger } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

const DAY = 86_400_000;

describe('POST /tenants/:tenantId/join-codes', () => {
  it('makes a STUDENT code for 14 days by default, shown as ABCD-EFGH', async () => {
    const school = await schoolOf(h);
    const before = Date.now();
    const code = await sdkOf(h, school.teacher).joinCodes.create(school.tenantId);
    expect(JoinCodeSchema.parse(code)).toEqual(code);
    expect(code).toMatchObject({
      role: 'STUDENT',
      uses: 0,
      maxUses: null,
      requiresApproval: false,
      status: 'ACTIVE',
    });
    expect(code.code).toMatch(/^[ABCDEFGHJKMNPQRTUVWXY346789]{4}-[ABCDEFGHJKMNPQRTUVWXY346789]{4}$/);
    expect(code.createdBy).toBe(school.teacher.userId);
    const days = (Date.parse(code.expiresAt) - before) / DAY;
    expect(days).toBeGreaterThan(13.99);
    expect(days).toBeLessThan(14.01);
  });

  it('keeps the code only as an HMAC and a sealed copy', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school);
    const [row] = await h.db
      .select()
      .from(joinCodes)
      .where(and(eq(joinCodes.tenantId, school.tenantId), eq(joinCodes.id, code.joinCodeId)));
    const plain = code.code.replace('-', '');
    expect(JSON.stringify(row)).not.toContain(plain);
    expect(row?.lookupHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lets a TEACHER make STUDENT codes only, an ADMIN TEACHER codes, nobody ADMIN or OWNER codes', async () => {
    const school = await schoolOf(h);
    expect(
      await refusal(sdkOf(h, school.teacher).joinCodes.create(school.tenantId, { role: 'TEACHER' })),
    ).toEqual(refused(403, 'ROLE_HIERARCHY_VIOLATION'));
    expect(await refusal(sdkOf(h, school.student).joinCodes.create(school.tenantId))).toEqual(
      refused(403, 'INSUFFICIENT_ROLE'),
    );
    expect((await sdkOf(h, school.admin).joinCodes.create(school.tenantId, { role: 'TEACHER' })).role).toBe(
      'TEACHER',
    );
    for (const role of ['ADMIN', 'OWNER']) {
      const res = await fetch(`${h.baseUrl}/tenants/${school.tenantId}/join-codes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${school.owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ role }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses an expiry in the past or more than 90 days away', async () => {
    const school = await schoolOf(h);
    const sdk = sdkOf(h, school.owner);
    for (const at of [Date.now() - DAY, Date.now() + 91 * DAY]) {
      const call = sdk.joinCodes.create(school.tenantId, { expiresAt: new Date(at).toISOString() });
      expect(await refusal(call)).toEqual(refused(400, 'VALIDATION_FAILED'));
    }
    const far = new Date(Date.now() + 89 * DAY).toISOString();
    expect((await sdk.joinCodes.create(school.tenantId, { expiresAt: far })).expiresAt).toBe(far);
  });
});

describe('GET /tenants/:tenantId/join-codes', () => {
  it('shows a TEACHER the STUDENT codes, an ADMIN all, each with its code', async () => {
    const school = await schoolOf(h);
    const student = await codeOf(h, school);
    const teacher = await codeOf(h, school, { role: 'TEACHER' });
    const byTeacher = await sdkOf(h, school.teacher).joinCodes.list(school.tenantId);
    expect(byTeacher.items.map((c) => c.joinCodeId)).toEqual([student.joinCodeId]);
    expect(byTeacher.items[0]?.code).toBe(student.code);
    const byAdmin = await sdkOf(h, school.admin).joinCodes.list(school.tenantId);
    expect(byAdmin.items.map((c) => c.joinCodeId)).toEqual([student.joinCodeId, teacher.joinCodeId]);
  });
});

describe('POST /join', () => {
  it('makes an ACTIVE membership with the code’s role, typed in any case, with or without the dash', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school, { role: 'TEACHER' });
    for (const typed of [code.code.toLowerCase(), code.code.replace('-', ''), ` ${code.code} `]) {
      const person = await stranger(h);
      const joined = await sdkOf(h, person).joinCodes.join(typed);
      expect(joined.outcome).toBe('joined');
      if (joined.outcome === 'requested') throw new Error('unreachable');
      expect(MembershipSchema.parse(joined.membership)).toMatchObject({
        userId: person.userId,
        role: 'TEACHER',
        status: 'ACTIVE',
      });
    }
    const [row] = await h.db
      .select({ uses: joinCodes.uses })
      .from(joinCodes)
      .where(and(eq(joinCodes.tenantId, school.tenantId), eq(joinCodes.id, code.joinCodeId)));
    expect(row?.uses).toBe(3);
  });

  it('answers an ACTIVE member 200 with the membership unchanged, and spends no use', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school);
    const again = await sdkOf(h, school.admin).joinCodes.join(code.code);
    expect(again.outcome).toBe('member');
    if (again.outcome === 'requested') throw new Error('unreachable');
    expect(again.membership).toMatchObject({ role: 'ADMIN', status: 'ACTIVE', version: 1 });
    const [listed] = (await sdkOf(h, school.owner).joinCodes.list(school.tenantId)).items;
    expect(listed?.uses).toBe(0);
  });

  it('leaves a SUSPENDED or ENDED member as they are: 409 MEMBERSHIP_NOT_ACTIVE', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school);
    const { tenantId } = school;
    await h.db
      .update(tenantMemberships)
      .set({ suspendedAt: sql`now()` })
      .where(
        and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, school.student.userId)),
      );
    await h.db
      .update(tenantMemberships)
      .set({ startsAt: sql`now() - interval '2 days'`, endsAt: sql`now() - interval '1 day'` })
      .where(
        and(eq(tenantMemberships.tenantId, tenantId), eq(tenantMemberships.userId, school.teacher.userId)),
      );
    for (const person of [school.student, school.teacher]) {
      expect(await refusal(sdkOf(h, person).joinCodes.join(code.code))).toEqual(
        refused(409, 'MEMBERSHIP_NOT_ACTIVE'),
      );
    }
    const rows = await h.db.select().from(tenantMemberships).where(eq(tenantMemberships.tenantId, tenantId));
    expect(rows.find((row) => row.userId === school.student.userId)?.suspendedAt).not.toBeNull();
    expect(rows.find((row) => row.userId === school.teacher.userId)?.role).toBe('TEACHER');
  });

  it('answers the same 404 for a wrong, malformed, expired, revoked or used-up code', async () => {
    const school = await schoolOf(h);
    const owner = sdkOf(h, school.owner);
    const expired = await codeOf(h, school);
    await h.db
      .update(joinCodes)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(and(eq(joinCodes.tenantId, school.tenantId), eq(joinCodes.id, expired.joinCodeId)));
    const revoked = await codeOf(h, school);
    await owner.joinCodes.revoke(school.tenantId, revoked.joinCodeId);
    const usedUp = await codeOf(h, school, { maxUses: 1 });
    await sdkOf(h, await stranger(h)).joinCodes.join(usedUp.code);
    const person = await stranger(h);
    for (const typed of ['ABCD-EFGH', 'not a code', 'ABCD--EFGH', expired.code, revoked.code, usedUp.code]) {
      expect(await refusal(sdkOf(h, person).joinCodes.join(typed)), typed).toEqual(
        refused(404, 'JOIN_CODE_NOT_FOUND'),
      );
      expect(await refusal(sdkOf(h, person).joinCodes.preview(typed)), typed).toEqual(
        refused(404, 'JOIN_CODE_NOT_FOUND'),
      );
    }
    const listed = (await owner.joinCodes.list(school.tenantId)).items.map((c) => [
      c.joinCodeId,
      c.status,
      c.code,
    ]);
    expect(listed).toEqual([
      [expired.joinCodeId, 'EXPIRED', expired.code],
      [revoked.joinCodeId, 'REVOKED', null],
      [usedUp.joinCodeId, 'USED_UP', usedUp.code],
    ]);
  });

  it('never joins a deleted tenant', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school);
    await h.db.update(tenants).set({ deletedAt: sql`now()` }).where(eq(tenants.id, school.tenantId));
    const person = await stranger(h);
    expect(await refusal(sdkOf(h, person).joinCodes.join(code.code))).toEqual(
      refused(404, 'JOIN_CODE_NOT_FOUND'),
    );
    expect(await refusal(sdkOf(h, person).joinCodes.preview(code.code))).toEqual(
      refused(404, 'JOIN_CODE_NOT_FOUND'),
    );
  });

  it('records membership.created with how the person joined, and no code in the trail', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school);
    const person = await stranger(h);
    await sdkOf(h, person).joinCodes.join(code.code);
    const events = (await sdkOf(h, school.owner).auditEvents.listForTenant(school.tenantId, { limit: 10 }))
      .items;
    const created = events.find((e) => e.action === 'membership.created' && e.actor.userId === person.userId);
    expect(created?.after).toMatchObject({ joinedVia: { method: 'join_code', joinCodeId: code.joinCodeId } });
    const made = events.find((e) => e.action === 'join_code.created');
    expect(made?.after).toMatchObject({ joinCodeId: code.joinCodeId, code: null });
  });
});

describe('rotate and revoke', () => {
  it('rotate gives new characters and the old ones stop at once', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school);
    const rotated = await sdkOf(h, school.teacher).joinCodes.rotate(school.tenantId, code.joinCodeId);
    expect(rotated.joinCodeId).toBe(code.joinCodeId);
    expect(rotated.code).not.toBe(code.code);
    const person = await stranger(h);
    expect(await refusal(sdkOf(h, person).joinCodes.join(code.code))).toEqual(
      refused(404, 'JOIN_CODE_NOT_FOUND'),
    );
    expect((await sdkOf(h, person).joinCodes.join(rotated.code ?? '')).outcome).toBe('joined');
  });

  it('a TEACHER may not rotate or revoke a TEACHER code; a revoked code is not found', async () => {
    const school = await schoolOf(h);
    const code = await codeOf(h, school, { role: 'TEACHER' });
    const teacher = sdkOf(h, school.teacher);
    expect(await refusal(teacher.joinCodes.rotate(school.tenantId, code.joinCodeId))).toEqual(
      refused(403, 'ROLE_HIERARCHY_VIOLATION'),
    );
    expect(await refusal(teacher.joinCodes.revoke(school.tenantId, code.joinCodeId))).toEqual(
      refused(403, 'ROLE_HIERARCHY_VIOLATION'),
    );
    await sdkOf(h, school.admin).joinCodes.revoke(school.tenantId, code.joinCodeId);
    expect(await refusal(sdkOf(h, school.admin).joinCodes.rotate(school.tenantId, code.joinCodeId))).toEqual(
      refused(404, 'JOIN_CODE_NOT_FOUND'),
    );
  });

  it('another tenant’s code is not found under this tenant', async () => {
    const school = await schoolOf(h);
    const other = await schoolOf(h);
    const theirs = await codeOf(h, other);
    const owner = sdkOf(h, school.owner);
    expect(await refusal(owner.joinCodes.rotate(school.tenantId, theirs.joinCodeId))).toEqual(
      refused(404, 'JOIN_CODE_NOT_FOUND'),
    );
    expect(await refusal(owner.joinCodes.revoke(school.tenantId, theirs.joinCodeId))).toEqual(
      refused(404, 'JOIN_CODE_NOT_FOUND'),
    );
    expect(await refusal(sdkOf(h, other.owner).joinCodes.list(school.tenantId))).toEqual(
      refused(403, 'TENANT_ACCESS_DENIED'),
    );
  });
});

describe('GET /join/:code', () => {
  it('says what the code would do, without joining', async () => {
    const t = await createTenantFixture(h, undefined, undefined, 'Green Valley High');
    const school = { ...(await schoolOf(h)), ...t };
    const open = await codeOf(h, school);
    const gated = await codeOf(h, school, { requiresApproval: true });
    const person = sdkOf(h, await stranger(h));
    expect(await person.joinCodes.preview(open.code)).toEqual({
      tenantName: 'Green Valley High',
      tenantSlug: t.slug,
      role: 'STUDENT',
      outcome: 'joinable',
    });
    expect((await person.joinCodes.preview(gated.code)).outcome).toBe('requires_approval');
    expect((await sdkOf(h, school.owner).joinCodes.preview(open.code)).outcome).toBe('already_member');
    const [row] = await h.db
      .select({ uses: joinCodes.uses })
      .from(joinCodes)
      .where(and(eq(joinCodes.tenantId, school.tenantId), eq(joinCodes.id, open.joinCodeId)));
    expect(row?.uses).toBe(0);
  });
});

describe('trying codes', () => {
  it('is limited per caller: 429 with Retry-After once the budget is spent', async () => {
    const limited = await startTestServer({ codeTriesPerMinute: 3 });
    try {
      const person = await stranger(limited);
      const sdk = sdkOf(limited, person);
      for (let i = 0; i < 3; i += 1) {
        expect(await refusal(sdk.joinCodes.join('ABCD-EFGH'))).toEqual(refused(404, 'JOIN_CODE_NOT_FOUND'));
      }
      const res = await fetch(`${limited.baseUrl}/join/ABCD-EFGH`, {
        headers: { authorization: `Bearer ${person.token}` },
      });
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      // The address's budget is spent too: another caller from it is refused as well.
      const other = await stranger(limited);
      expect(await refusal(sdkOf(limited, other).joinCodes.join('ABCD-EFGH'))).toEqual(
        refused(429, 'RATE_LIMITED'),
      );
    } finally {
      await limited.close();
    }
  });
});
