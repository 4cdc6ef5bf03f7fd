import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardianInvitations, guardianLinks } from '../../src/db/schema.js';
import { invitedGuardian, schoolOf } from '../guardians/helpers.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { decided, errorCodeOf } from '../support/memberships.js';

// PostgreSQL only (this folder runs when TEST_DATABASE_URL is set): PGlite runs one transaction at
// a time, so this would pass even without the tenant lock. The invitee's accept finds the
// invitation's tenant by its id, locks it, and reads the invitation again; the school's revoke
// runs in the transaction that locked the tenant first. Whichever commits second finds the
// invitation answered.
const ROUNDS = 30;

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

describe('a guardian invitation accepted and revoked at once', () => {
  it(`gives exactly one winner, and a state that agrees with it (${ROUNDS} rounds)`, async () => {
    const wins = { accept: 0, revoke: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const school = await schoolOf(h);
      const { invitee, invitation } = await invitedGuardian(h, school);
      const id = invitation.guardianInvitationId;
      const accept = () =>
        decided(() =>
          invitee.api.guardianInvitations.accept({ params: { guardianInvitationId: id }, body: {} }),
        );
      const revoke = () =>
        decided(() =>
          school.teacher.api.guardianInvitations.revoke({
            params: { tenantId: school.tenantId, guardianInvitationId: id },
            body: {},
          }),
        );
      // Alternate which is sent first, so that neither always has the head start.
      const [accepted, revoked] =
        round % 2 === 0
          ? await Promise.all([accept(), revoke()])
          : await Promise.all([revoke(), accept()]).then(([r, a]) => [a, r] as const);
      const context = `round ${round}: accept ${accepted.status} ${errorCodeOf(accepted) ?? ''}, revoke ${revoked.status} ${errorCodeOf(revoked) ?? ''}`;
      const [row] = await h.db
        .select({ status: guardianInvitations.status, guardianUserId: guardianInvitations.guardianUserId })
        .from(guardianInvitations)
        .where(and(eq(guardianInvitations.tenantId, school.tenantId), eq(guardianInvitations.id, id)));
      const links = await h.db
        .select({ status: guardianLinks.status, guardianUserId: guardianLinks.guardianUserId })
        .from(guardianLinks)
        .where(eq(guardianLinks.tenantId, school.tenantId));
      if (accepted.status === 201) {
        wins.accept++;
        expect(revoked.status, context).toBe(409);
        expect(errorCodeOf(revoked), context).toBe('INVITATION_NOT_PENDING');
        expect(row, context).toEqual({ status: 'ACCEPTED', guardianUserId: invitee.userId });
        expect(links, context).toEqual([{ status: 'ACTIVE', guardianUserId: invitee.userId }]);
      } else {
        wins.revoke++;
        expect(revoked.status, context).toBe(200);
        expect(accepted.status, context).toBe(409);
        expect(errorCodeOf(accepted), context).toBe('INVITATION_NOT_PENDING');
        expect(row, context).toEqual({ status: 'REVOKED', guardianUserId: null });
        expect(links, context).toEqual([]);
      }
    }
    expect(wins.accept + wins.revoke).toBe(ROUNDS);
  });
});
