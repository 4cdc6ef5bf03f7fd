import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudonymOf } from '../../src/modules/erasure/pseudonym.js';
import { type Actor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';
import { codeOf, schoolOf } from './helpers.js';

/*
 * Erasing a person (DELETE /admin/users/:userId) who asked to join one school and was blocked by
 * another: the request is cancelled, the block lifted, each with its event, and the trail shows
 * the pseudonym wherever it showed the person.
 */

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

describe('erasing a person who asked to join', () => {
  it('cancels their pending requests, lifts their blocks, and leaves them nowhere in the trail', async () => {
    const asking = await schoolOf(h);
    const blocking = await schoolOf(h);
    const name = 'Ann Erasable';
    const subject = `ann-${Date.now()}`;
    const email = `${subject}@example.test`;
    const token = await h.token(subject, { email, emailVerified: true, name });
    const ann = sdkOf(h, { token });
    const pending = await ann.joinCodes.join((await codeOf(h, asking, { requiresApproval: true })).code);
    const refused = await ann.joinCodes.join((await codeOf(h, blocking, { requiresApproval: true })).code);
    if (pending.outcome !== 'requested' || refused.outcome !== 'requested') throw new Error('setup');
    const { userId } = pending.joinRequest;
    await sdkOf(h, blocking.admin).joinRequests.block(blocking.tenantId, refused.joinRequest.joinRequestId);

    await sdkOf(h, superAdmin).users.erase(userId);

    const [request] = (await sdkOf(h, asking.admin).joinRequests.list(asking.tenantId)).items;
    const pseudonym = pseudonymOf(userId);
    expect(request).toMatchObject({
      status: 'CANCELLED',
      email: pseudonym.email,
      displayName: pseudonym.name,
    });
    // The block is gone: lifting it again finds nothing.
    const lift = await fetch(`${h.baseUrl}/tenants/${blocking.tenantId}/join-blocks/${userId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${blocking.owner.token}` },
    });
    expect(lift.status).toBe(404);
    for (const school of [asking, blocking]) {
      const events = (await sdkOf(h, school.owner).auditEvents.listForTenant(school.tenantId, { limit: 50 }))
        .items;
      const text = JSON.stringify(events);
      expect(text).not.toContain(email);
      expect(text).not.toContain(name);
      const expected = school === asking ? 'join_request.cancelled' : 'join_request.unblocked';
      expect(events[0]?.action).toBe(expected);
    }
  });
});
