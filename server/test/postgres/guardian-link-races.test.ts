import type { PairingCode } from '@tms/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardianLinks, pairingCodes } from '../../src/db/schema.js';
import { codeFor, schoolOf } from '../guardians/helpers.js';
import { type Actor, createActor } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';

// A pairing code is single use, and a student has at most six ACTIVE guardians, under concurrent
// redeemers on a pool of connections (PGlite runs one transaction at a time, so no race can happen
// there). Each redeemer finds the code's tenant by hash, then locks the tenant and reads the code
// again: without the lock, each would find the code unused and link itself.
const ROUNDS = 20;
const RACERS = 8;

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer({ codeTriesPerMinute: 0 });
});
afterAll(() => h?.close());

const redeem = (guardian: Actor, code: string) =>
  fetch(`${h.baseUrl}/me/guardian-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${guardian.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code, relationship: 'PARENT' }),
  }).then(async (res) => ({
    status: res.status,
    code: (await jsonOf(res)).error?.code as string | undefined,
  }));

describe('a pairing code redeemed at once by several guardians', () => {
  it(`gives exactly one link, ${ROUNDS} times over`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const school = await schoolOf(h);
      const { code, pairingCodeId } = await codeFor(h, school);
      const guardians = await Promise.all(Array.from({ length: RACERS }, () => createActor(h)));
      const answers = await Promise.all(guardians.map((guardian) => redeem(guardian, code)));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 404 && a.code === 'PAIRING_CODE_NOT_FOUND')).toHaveLength(
        RACERS - 1,
      );
      const links = await h.db
        .select()
        .from(guardianLinks)
        .where(eq(guardianLinks.tenantId, school.tenantId));
      expect(links).toHaveLength(1);
      const [used] = await h.db
        .select()
        .from(pairingCodes)
        .where(and(eq(pairingCodes.tenantId, school.tenantId), eq(pairingCodes.id, pairingCodeId)));
      expect(used?.usedAt).not.toBeNull();
    }
  });

  it('by the same guardian twice at once: one link, the other told it exists or the code is gone', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const school = await schoolOf(h);
      const guardian = await createActor(h);
      const [first, second] = [await codeFor(h, school), await codeFor(h, school)];
      const answers = await Promise.all([redeem(guardian, first.code), redeem(guardian, second.code)]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)?.code).toBe('GUARDIAN_LINK_ALREADY_EXISTS');
      const links = await h.db
        .select()
        .from(guardianLinks)
        .where(eq(guardianLinks.tenantId, school.tenantId));
      expect(links).toHaveLength(1);
    }
  });
});

describe('the six-guardian limit, raced', () => {
  it('lets exactly the free places through when more guardians redeem at once', async () => {
    const school = await schoolOf(h);
    // Four places taken first: two are left for five racers (five live codes, the most a student has).
    for (let i = 0; i < 4; i++) {
      const { code } = await codeFor(h, school);
      expect((await redeem(await createActor(h), code)).status).toBe(201);
    }
    const codes: PairingCode[] = [];
    for (let i = 0; i < 5; i++) codes.push(await codeFor(h, school));
    const racers = await Promise.all(codes.map(() => createActor(h)));
    const answers = await Promise.all(racers.map((racer, i) => redeem(racer, codes[i]?.code ?? '')));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
    expect(answers.filter((a) => a.code === 'GUARDIAN_LIMIT_REACHED')).toHaveLength(3);
    const active = await h.db
      .select()
      .from(guardianLinks)
      .where(and(eq(guardianLinks.tenantId, school.tenantId), eq(guardianLinks.status, 'ACTIVE')));
    expect(active).toHaveLength(6);
  });
});
