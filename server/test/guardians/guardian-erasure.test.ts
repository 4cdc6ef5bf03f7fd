import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, guardianLinks, pairingCodes } from '../../src/db/schema.js';
import { type Actor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';
import { codeFor, linkedGuardian, schoolOf } from './helpers.js';

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer({ codeTriesPerMinute: 0 });
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

const linksIn = (tenantId: string) =>
  h.db.select().from(guardianLinks).where(eq(guardianLinks.tenantId, tenantId));
const trailOf = (tenantId: string) =>
  h.db.select().from(auditEvents).where(eq(auditEvents.tenantId, tenantId)).orderBy(auditEvents.sequence);

describe('erasing a user (DELETE /admin/users/:userId)', () => {
  it("removes a guardian's links, each recorded, and leaves nothing of them in the trail", async () => {
    const school = await schoolOf(h);
    const { guardian, link } = await linkedGuardian(h, school);
    const other = await linkedGuardian(h, school);
    await sdkOf(h, superAdmin).users.erase(guardian.userId);
    expect((await linksIn(school.tenantId)).map((row) => row.id)).toEqual([other.link.guardianLinkId]);
    const trail = await trailOf(school.tenantId);
    const removed = trail.filter((e) => e.targetId === link.guardianLinkId).map((e) => e.action);
    expect(removed).toEqual(['guardian_link.created', 'guardian_link.removed']);
    // The link's events hold opaque ids only: neither the address nor the name nor the subject.
    const text = JSON.stringify(trail);
    expect(text).not.toContain(guardian.email);
    expect(text).not.toContain(guardian.subject);
    expect(await sdkOf(h, school.student).guardians.listMyGuardians()).toEqual([
      expect.objectContaining({ guardianLinkId: other.link.guardianLinkId }),
    ]);
  });

  it("removes an erased student's links and their pairing codes", async () => {
    const school = await schoolOf(h);
    const { guardian } = await linkedGuardian(h, school);
    const code = await codeFor(h, school);
    // The student's membership goes with the erasure; their links do not stay behind, REVOKED.
    await sdkOf(h, superAdmin).users.erase(school.student.userId);
    expect(await linksIn(school.tenantId)).toEqual([]);
    const codes = await h.db
      .select()
      .from(pairingCodes)
      .where(and(eq(pairingCodes.tenantId, school.tenantId), eq(pairingCodes.id, code.pairingCodeId)));
    expect(codes).toEqual([]);
    expect(await sdkOf(h, guardian).guardians.listWards()).toEqual([]);
    expect((await sdkOf(h, guardian).me()).guardianOf).toEqual([]);
  });
});
