import { PAIRING_CODE_DAYS, PairingCodeSchema } from '@tms/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDEEMABLE_CODE_ALPHABET } from '../../src/auth/redeemable-code.js';
import { auditEvents, guardianLinks, pairingCodes } from '../../src/db/schema.js';
import { addMember, createActor } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { codeFor, lapseCode, schoolOf } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer({ codeTriesPerMinute: 0 });
});
afterAll(() => h?.close());

const DAY = 86_400_000;

/** The tenant's events about one thing, as stored. */
const trailOf = (tenantId: string, targetId: string) =>
  h.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.targetId, targetId)))
    .orderBy(auditEvents.sequence);

describe('POST /tenants/:tenantId/students/:userId/pairing-codes', () => {
  it('gives a TEACHER an 8-character code without look-alikes, valid 7 days, shown once', async () => {
    const school = await schoolOf(h);
    const made = await codeFor(h, school);
    expect(PairingCodeSchema.parse(made)).toEqual(made);
    expect(made.code).toMatch(new RegExp(`^[${REDEEMABLE_CODE_ALPHABET}]{8}$`));
    expect(made.studentUserId).toBe(school.student.userId);
    expect(Date.parse(made.expiresAt) - Date.parse(made.createdAt)).toBe(PAIRING_CODE_DAYS * DAY);
    // Only its keyed hash is kept: the database alone gives no code away.
    const [row] = await h.db
      .select()
      .from(pairingCodes)
      .where(and(eq(pairingCodes.tenantId, school.tenantId), eq(pairingCodes.id, made.pairingCodeId)));
    expect(row?.codeHash).not.toContain(made.code);
    expect(JSON.stringify(row)).not.toContain(made.code);
    // Nor does the trail.
    const events = await trailOf(school.tenantId, made.pairingCodeId);
    expect(events.map((e) => e.action)).toEqual(['pairing_code.created']);
    expect(JSON.stringify(events)).not.toContain(made.code);
  });

  it('lets the student make their own, and ADMINs, OWNERs and super administrators too', async () => {
    const school = await schoolOf(h);
    for (const actor of [school.student, school.admin, school.owner]) {
      const made = await sdkOf(h, actor).guardians.createPairingCode(school.tenantId, school.student.userId);
      expect(made.studentUserId).toBe(school.student.userId);
    }
  });

  it("refuses a student another student's code, and a stranger or a guardian as a stranger", async () => {
    const school = await schoolOf(h);
    const other = await addMember(h, school.tenantId, 'STUDENT');
    expect(
      await refusal(
        sdkOf(h, other.actor).guardians.createPairingCode(school.tenantId, school.student.userId),
      ),
    ).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
    const stranger = await createActor(h);
    expect(
      await refusal(sdkOf(h, stranger).guardians.createPairingCode(school.tenantId, school.student.userId)),
    ).toEqual(refused(403, 'TENANT_ACCESS_DENIED'));
    // A guardian of the student is no member: refused exactly as the stranger.
    const guardian = await createActor(h);
    const { code } = await codeFor(h, school);
    await sdkOf(h, guardian).guardians.redeem({ code, relationship: 'PARENT' });
    expect(
      await refusal(sdkOf(h, guardian).guardians.createPairingCode(school.tenantId, school.student.userId)),
    ).toEqual(refused(403, 'TENANT_ACCESS_DENIED'));
  });

  it('answers STUDENT_NOT_FOUND for a member who is not a student, and for a stranger', async () => {
    const school = await schoolOf(h);
    const teacherSdk = sdkOf(h, school.teacher);
    expect(
      await refusal(teacherSdk.guardians.createPairingCode(school.tenantId, school.admin.userId)),
    ).toEqual(refused(404, 'STUDENT_NOT_FOUND'));
    const stranger = await createActor(h);
    expect(await refusal(teacherSdk.guardians.createPairingCode(school.tenantId, stranger.userId))).toEqual(
      refused(404, 'STUDENT_NOT_FOUND'),
    );
  });

  it('keeps at most 5 live codes per student: a sixth revokes the oldest, which no longer redeems', async () => {
    const school = await schoolOf(h);
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await codeFor(h, school));
    const live = await h.db
      .select({ id: pairingCodes.id, revokedAt: pairingCodes.revokedAt })
      .from(pairingCodes)
      .where(
        and(
          eq(pairingCodes.tenantId, school.tenantId),
          eq(pairingCodes.studentUserId, school.student.userId),
        ),
      )
      .orderBy(pairingCodes.id);
    expect(live.map((row) => row.revokedAt !== null)).toEqual([true, false, false, false, false, false]);
    const trail = await trailOf(school.tenantId, made[0]?.pairingCodeId ?? '');
    expect(trail.map((e) => e.action)).toEqual(['pairing_code.created', 'pairing_code.revoked']);
    const guardian = await createActor(h);
    expect(
      await refusal(
        sdkOf(h, guardian).guardians.redeem({ code: made[0]?.code ?? '', relationship: 'PARENT' }),
      ),
    ).toEqual(refused(404, 'PAIRING_CODE_NOT_FOUND'));
    await sdkOf(h, guardian).guardians.redeem({ code: made[5]?.code ?? '', relationship: 'PARENT' });
  });
});

describe('POST /me/guardian-links', () => {
  it('makes an ACTIVE link from a code, typed in any case with a dash, and records it', async () => {
    const school = await schoolOf(h);
    const { code } = await codeFor(h, school);
    const guardian = await createActor(h);
    const typed = `${code.slice(0, 4).toLowerCase()}-${code.slice(4)}`;
    const link = await sdkOf(h, guardian).guardians.redeem({ code: typed, relationship: 'GUARDIAN' });
    expect(link).toMatchObject({
      tenantId: school.tenantId,
      studentUserId: school.student.userId,
      guardianUserId: guardian.userId,
      relationship: 'GUARDIAN',
      status: 'ACTIVE',
      source: 'PAIRING_CODE',
      revokedAt: null,
    });
    const events = await trailOf(school.tenantId, link.guardianLinkId);
    expect(events.map((e) => [e.action, e.tenantId, e.actorUserId])).toEqual([
      ['guardian_link.created', school.tenantId, guardian.userId],
    ]);
  });

  it('answers one 404 for a wrong, malformed, used or expired code', async () => {
    const school = await schoolOf(h);
    const guardian = sdkOf(h, await createActor(h));
    const notFound = refused(404, 'PAIRING_CODE_NOT_FOUND');
    expect(await refusal(guardian.guardians.redeem({ code: 'AAAAAAAA', relationship: 'PARENT' }))).toEqual(
      notFound,
    );
    expect(await refusal(guardian.guardians.redeem({ code: 'not a code!', relationship: 'PARENT' }))).toEqual(
      notFound,
    );
    const used = await codeFor(h, school);
    await guardian.guardians.redeem({ code: used.code, relationship: 'PARENT' });
    const another = sdkOf(h, await createActor(h));
    expect(await refusal(another.guardians.redeem({ code: used.code, relationship: 'PARENT' }))).toEqual(
      notFound,
    );
    const expired = await codeFor(h, school);
    await lapseCode(h, expired);
    expect(await refusal(another.guardians.redeem({ code: expired.code, relationship: 'PARENT' }))).toEqual(
      notFound,
    );
  });

  it('refuses a second ACTIVE link for the same pair, without spending the code', async () => {
    const school = await schoolOf(h);
    const guardian = await createActor(h);
    await sdkOf(h, guardian).guardians.redeem({
      code: (await codeFor(h, school)).code,
      relationship: 'PARENT',
    });
    const second = await codeFor(h, school);
    expect(
      await refusal(sdkOf(h, guardian).guardians.redeem({ code: second.code, relationship: 'PARENT' })),
    ).toEqual(refused(409, 'GUARDIAN_LINK_ALREADY_EXISTS'));
    // The code is still live: someone else may use it.
    await sdkOf(h, await createActor(h)).guardians.redeem({ code: second.code, relationship: 'RELATIVE' });
  });

  it('makes a REVOKED link ACTIVE again, one row per pair', async () => {
    const school = await schoolOf(h);
    const guardian = await createActor(h);
    const first = await sdkOf(h, guardian).guardians.redeem({
      code: (await codeFor(h, school)).code,
      relationship: 'PARENT',
    });
    await sdkOf(h, school.admin).guardians.removeLink(school.tenantId, first.guardianLinkId);
    const again = await sdkOf(h, guardian).guardians.redeem({
      code: (await codeFor(h, school)).code,
      relationship: 'OTHER',
    });
    expect(again).toMatchObject({
      guardianLinkId: first.guardianLinkId,
      status: 'ACTIVE',
      relationship: 'OTHER',
      revokedAt: null,
    });
    const rows = await h.db
      .select()
      .from(guardianLinks)
      .where(
        and(eq(guardianLinks.tenantId, school.tenantId), eq(guardianLinks.guardianUserId, guardian.userId)),
      );
    expect(rows).toHaveLength(1);
  });

  it('keeps at most 6 ACTIVE guardians per student', async () => {
    const school = await schoolOf(h);
    for (let i = 0; i < 6; i++)
      await sdkOf(h, await createActor(h)).guardians.redeem({
        code: (await codeFor(h, school)).code,
        relationship: 'RELATIVE',
      });
    const seventh = await codeFor(h, school);
    expect(
      await refusal(
        sdkOf(h, await createActor(h)).guardians.redeem({ code: seventh.code, relationship: 'PARENT' }),
      ),
    ).toEqual(refused(409, 'GUARDIAN_LIMIT_REACHED'));
  });

  it('refuses the student their own code', async () => {
    const school = await schoolOf(h);
    const { code } = await sdkOf(h, school.student).guardians.createPairingCode(
      school.tenantId,
      school.student.userId,
    );
    expect(await refusal(sdkOf(h, school.student).guardians.redeem({ code, relationship: 'OTHER' }))).toEqual(
      refused(409, 'GUARDIAN_OF_SELF'),
    );
  });

  it('refuses a body that is not one, as validation', async () => {
    const guardian = await createActor(h);
    const res = await fetch(`${h.baseUrl}/me/guardian-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${guardian.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'AAAAAAAA', relationship: 'UNCLE', extra: 1 }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('the try budget', () => {
  it('refuses a caller past its tries with 429 and Retry-After, found or not', async () => {
    const limited = await startTestServer({ codeTriesPerMinute: 3 });
    try {
      const guardian = await createActor(limited);
      const send = () =>
        fetch(`${limited.baseUrl}/me/guardian-links`, {
          method: 'POST',
          headers: { authorization: `Bearer ${guardian.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ code: 'AAAAAAAA', relationship: 'PARENT' }),
        });
      for (let i = 0; i < 3; i++) expect((await send()).status).toBe(404);
      const refusedTry = await send();
      expect(refusedTry.status).toBe(429);
      expect(Number(refusedTry.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
